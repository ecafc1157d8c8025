package netcfg

import "fmt"

// ValidatePort reports whether p is a usable TCP port.
func ValidatePort(p int) error {
	if p < 1 || p > 65535 {
		return fmt.Errorf("port %d out of range", p)
	}
	return nil
}
