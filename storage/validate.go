package storage

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
