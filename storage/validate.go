package storage

import (
	"fmt"
	"time"
)

// CheckIDs reports ErrInvalid when a settings id or conversation id is empty.
// Stores call it first, so that no operation runs without a tenant.
func CheckIDs(settingsID string, conversationID ...string) error {
	if settingsID == "" {
		return fmt.Errorf("storage: empty settings id: %w", ErrInvalid)
	}
	for _, id := range conversationID {
		if id == "" {
			return fmt.Errorf("storage: empty conversation id: %w", ErrInvalid)
		}
	}
	return nil
}

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
