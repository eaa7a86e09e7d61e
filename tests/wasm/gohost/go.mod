module kubeadm-ts/tests/wasm/gohost

go 1.24

require github.com/bytecodealliance/wasmtime-go/v39 v39.0.1
