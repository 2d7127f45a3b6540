package security

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/notch-web/notch-web/internal/jsonx"
	"github.com/notch-web/notch-web/internal/textrule"
)

// maxDevicesFile bounds what is read of devices.json: MaxDevices records
// are a few KiB.
const maxDevicesFile = 256 << 10

// devicesFileVersion is the one shape of devices.json this build reads.
const devicesFileVersion = 1

// maxRoleText bounds a role devices.json spells that this build does not
// know: kept and written back, but not without bound.
const maxRoleText = 64

// MaxDeviceName is the longest device name, in characters.
const MaxDeviceName = 40

// record is one device of devices.json: the device and its token's hash.
type record struct {
	Device
	hash [sha256.Size]byte
	// roleText is the role as devices.json spells it when this build does
	// not know it (Device.Role is then zero): written back as it was, so
	// a hand-edited role is never widened nor lost.
	roleText string
}

// fileRecord is a record as devices.json spells it.
type fileRecord struct {
	Device
	// Role shadows Device.Role: absent is a devices.json written before
	// roles (DefaultRole); a word this build does not know is kept.
	Role        string `json:"role,omitempty"`
	TokenSHA256 string `json:"tokenSha256"` // hex; the token itself is never written
}

// devicesFile is devices.json.
type devicesFile struct {
	Version int          `json:"version"`
	Devices []fileRecord `json:"devices"`
}

// ParseDevices reads devices.json strictly: one object of this version, no
// unknown field, every device with a well-formed ID, name, creation time
// and token hash, no ID or name twice, at most MaxDevices.
func ParseDevices(data []byte) ([]record, error) {
	var f devicesFile
	if err := jsonx.DecodeOne(data, &f, jsonx.Options{Strict: true}); err != nil {
		return nil, errors.New(jsonx.Reason(err))
	}
	if f.Version != devicesFileVersion {
		return nil, fmt.Errorf("version %d: this build reads version %d", f.Version, devicesFileVersion)
	}
	if len(f.Devices) > MaxDevices {
		return nil, fmt.Errorf("%d devices: at most %d", len(f.Devices), MaxDevices)
	}
	out := make([]record, 0, len(f.Devices))
	ids, names := map[string]bool{}, map[string]bool{}
	for i, fr := range f.Devices {
		r, err := checkRecord(fr)
		if err != nil {
			return nil, fmt.Errorf("device %d: %w", i+1, err)
		}
		if ids[r.ID] {
			return nil, fmt.Errorf("device %d: id %s twice", i+1, r.ID)
		}
		key := strings.ToLower(r.Name)
		if names[key] {
			return nil, fmt.Errorf("device %d: name %q twice", i+1, r.Name)
		}
		ids[r.ID], names[key] = true, true
		out = append(out, r)
	}
	return out, nil
}

func checkRecord(fr fileRecord) (record, error) {
	if len(fr.ID) != 2*idBytes || !isLowerHex(fr.ID) {
		return record{}, fmt.Errorf("id must be %d lower-case hex digits", 2*idBytes)
	}
	if err := CheckDeviceName(fr.Name); err != nil {
		return record{}, err
	}
	if fr.Created.IsZero() {
		return record{}, errors.New("created is missing")
	}
	if len(fr.TokenSHA256) != 2*sha256.Size || !isLowerHex(fr.TokenSHA256) {
		return record{}, fmt.Errorf("tokenSha256 must be %d lower-case hex digits", 2*sha256.Size)
	}
	r := record{Device: fr.Device}
	switch role, err := ParseRole(fr.Role); {
	case fr.Role == "":
		r.Role = DefaultRole
	case err != nil:
		if len(fr.Role) > maxRoleText || !utf8.ValidString(fr.Role) {
			return record{}, fmt.Errorf("role %.40q: %w", fr.Role, ErrRole)
		}
		r.Role, r.roleText = 0, fr.Role // refused at the gate, never widened (Devices.Check)
	default:
		r.Role = role
	}
	hex.Decode(r.hash[:], []byte(fr.TokenSHA256))
	return r, nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// CheckDeviceName says whether name may name a device: 1 to MaxDeviceName
// characters, letters, digits, spaces and . _ - only, not starting or
// ending with a space. It is shown on the board and the command line, so
// nothing in it can act on a screen (internal/textrule).
func CheckDeviceName(name string) error {
	n := utf8.RuneCountInString(name)
	if n == 0 || n > MaxDeviceName || !utf8.ValidString(name) || textrule.Has(name) || strings.TrimSpace(name) != name {
		return ErrDeviceName
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" ._-", r) {
			return ErrDeviceName
		}
	}
	return nil
}

// formatDevices is devices.json for recs.
func formatDevices(recs []record) ([]byte, error) {
	f := devicesFile{Version: devicesFileVersion, Devices: make([]fileRecord, len(recs))}
	for i, r := range recs {
		role := r.roleText
		if r.Role.Valid() {
			role = r.Role.String()
		}
		f.Devices[i] = fileRecord{Device: r.Device, Role: role, TokenSHA256: hex.EncodeToString(r.hash[:])}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
