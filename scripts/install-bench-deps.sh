#!/usr/bin/env bash
# Installs what the benches' PyTorch sides (`qwen3`, `checkpoint-load`, `update-shapes`) need on Debian:
# python3-torch, and OpenBLAS as the system BLAS. Debian's torch calls whatever libblas.so.3 is
# selected, and the default one (reference BLAS) multiplies matrices at ~1 GFLOP/s, which would make the
# comparison meaningless; the OpenMP build of OpenBLAS follows torch.set_num_threads. Root only;
# otherwise it says what to run.
set -euo pipefail
if /usr/bin/python3 -c 'import torch' >/dev/null 2>&1 && [ -e /usr/lib/x86_64-linux-gnu/openblas-openmp ]; then
  echo "install-bench-deps: python3-torch and OpenBLAS are installed" >&2
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq python3-torch libopenblas0-openmp >/dev/null
  echo "install-bench-deps: installed python3-torch and libopenblas0-openmp" >&2
else
  echo "install-bench-deps: run as root: apt-get install python3-torch libopenblas0-openmp" >&2
  exit 1
fi
