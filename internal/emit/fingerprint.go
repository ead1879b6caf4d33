package emit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/typeshift-go/typeshift/internal/model"
)

// FormatVersion names the emitter's output format. Change it whenever the emitter writes different code for the
// same model, so that every generated file's fingerprint changes with it and the analyzer (TSH010) reports the
// files the new emitter would write differently. TestFormatVersion fails when the golden files change without it.
const FormatVersion = "7"

// FingerprintPrefix starts the line, right after Header, that carries a generated file's fingerprint.
const FingerprintPrefix = "// typeshift:fingerprint "

// Fingerprint returns the hex SHA-256 of the format version and the model's canonical encoding. The emitter reads
// nothing but the model, so two models with one fingerprint give one file: a checker compares fingerprints
// instead of generating and formatting the file. The encoding is encoding/json's, which writes struct fields in
// declaration order and map keys sorted.
func Fingerprint(pkg *model.Package) (string, error) {
	h := sha256.New()
	h.Write([]byte("typeshift format " + FormatVersion + "\n"))
	if err := json.NewEncoder(h).Encode(pkg); err != nil {
		return "", fmt.Errorf("emit: encode model for its fingerprint: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ReadFingerprint returns the fingerprint recorded in a generated file, and false when src does not start with
// Header and a fingerprint line.
func ReadFingerprint(src []byte) (string, bool) {
	rest, ok := bytes.CutPrefix(src, []byte(Header+"\n"+FingerprintPrefix))
	if !ok {
		return "", false
	}
	line, _, ok := bytes.Cut(rest, []byte("\n"))
	if !ok || len(line) == 0 {
		return "", false
	}
	return string(bytes.TrimSuffix(line, []byte("\r"))), true
}
