// x509-oracle reads DER certificates framed on stdin (a 4-byte big-endian length, then the
// bytes) and answers each on a line of stdout: "ok", or "err " and Go's error. It is the Go
// standard library's x509.ParseCertificate, which upstream kubeadm parses certificates with;
// scripts/fuzz_der.ts (--go) compares it with ours.
package main

import (
	"bufio"
	"crypto/x509"
	"encoding/binary"
	"io"
	"os"
	"strings"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	var size [4]byte
	for {
		if _, err := io.ReadFull(in, size[:]); err != nil {
			return
		}
		der := make([]byte, binary.BigEndian.Uint32(size[:]))
		if _, err := io.ReadFull(in, der); err != nil {
			return
		}
		if _, err := x509.ParseCertificate(der); err != nil {
			out.WriteString("err " + strings.ReplaceAll(err.Error(), "\n", " ") + "\n")
		} else {
			out.WriteString("ok\n")
		}
		out.Flush()
	}
}
