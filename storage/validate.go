package storage

import (
	"fmt"
	"time"
)

// CheckIDs reports ErrInvalid when a settings id or conversation id is one
// no store holds: empty, longer than [MaxIDLength] bytes, not valid UTF-8, or
// with a NUL byte. Stores call it first, so that no operation runs without a
// tenant and no id reaches a database that would refuse it.
func CheckIDs(settingsID string, conversationID ...string) error {
	if err := checkID("settings id", settingsID); err != nil {
		return err
	}
	for _, id := range conversationID {
		if err := checkID("conversation id", id); err != nil {
			return err
		}
	}
	return nil
}

// CheckLeaseOwner reports ErrInvalid when a claim's owner is not text a
// store holds (see [CheckText]). Claim calls it.
func CheckLeaseOwner(owner string) error { return CheckText("lease owner", owner) }

// CheckTTL reports ErrInvalid when a lease time is not positive.
func CheckTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("storage: lease time %v: %w", ttl, ErrInvalid)
	}
	return nil
}

// CheckClaim reports ErrInvalid when c lacks ids or a token, which no store
// ever hands out.
func CheckClaim(c Claim) error {
	if err := CheckIDs(c.SettingsID, c.ConversationID); err != nil {
		return err
	}
	if c.Token == "" {
		return fmt.Errorf("storage: claim without a token: %w", ErrInvalid)
	}
	return nil
}
