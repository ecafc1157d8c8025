package netcfg

import "fmt"

const (
	minPort = 1
	maxPort = 1<<17 - 1
)

// ValidatePort reports whether p is a usable TCP port.
func ValidatePort(p int) error {
	if p < minPort || p > maxPort {
		return fmt.Errorf("netcfg: port %d out of range [%d, %d]", p, minPort, maxPort)
	}
	return nil
}
