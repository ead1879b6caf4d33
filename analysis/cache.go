package analysis

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/typeshift-go/typeshift/internal/model"
)

// genCache remembers, for a model, the hash of the file the generator writes for it, so that TSH010 need not
// generate the file again while the declarations stay the same. Generating and formatting the file is nearly all
// of the analyzer's cost (see docs/performance-vet.md), and go vet runs it in a new process for every package, so
// the memory lives on disk: one small file per model, under the user's cache directory.
//
// A key is the hash of the running executable (the generator's code is part of it) and of the model's JSON (the
// generator reads nothing else), so a new build of the tool or any change to a declaration misses. Failures to
// read or write the cache only cost the time it would have saved.
type genCache struct {
	dir string
}

// cacheEnv names the environment variable that moves the cache; "off" turns it off.
const cacheEnv = "TYPESHIFT_VET_CACHE"

// defaultCacheDir returns the directory of the analyzer's cache, or "" when there is none.
func defaultCacheDir() string {
	if dir := os.Getenv(cacheEnv); dir != "" {
		if dir == "off" {
			return ""
		}
		return dir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "typeshift", "vet")
}

// executableHash identifies the running program's code, computed once per process.
var executableHash = sync.OnceValue(func() []byte {
	path, err := os.Executable()
	if err != nil {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil
	}
	return h.Sum(nil)
})

// key returns the cache key of a model, or "" when it has none.
func (c genCache) key(pkg *model.Package) string {
	exe := executableHash()
	if c.dir == "" || exe == nil {
		return ""
	}
	h := sha256.New()
	h.Write(exe)
	if err := json.NewEncoder(h).Encode(pkg); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// upToDate reports whether the cache knows that the generator writes exactly file for the model of key.
func (c genCache) upToDate(key string, file []byte) bool {
	if key == "" {
		return false
	}
	want, err := os.ReadFile(c.path(key))
	return err == nil && string(want) == fileHash(file)
}

// store records the hash of the file the generator writes for the model of key. It writes a temporary file and
// renames it, so that concurrent vet processes never read half an entry.
func (c genCache) store(key string, file []byte) {
	if key == "" {
		return
	}
	path := c.path(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "tmp-")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(fileHash(file))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

func (c genCache) path(key string) string { return filepath.Join(c.dir, key[:2], key) }

func fileHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
