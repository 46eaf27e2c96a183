#!/usr/bin/env bash
# Installs the Debian packages edgerun builds and tests with, only those that are missing.
# With --sanitizers, also what the sanitizer and fuzzing builds need (clang, libclang-rt).
# Idempotent and quiet when everything is present. Needs root (or sudo) only when installing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  flatbuffers-compiler libflatbuffers-dev
  libgtest-dev libgmock-dev
  nlohmann-json3-dev
  python3
  # bindings: the Python package (pybind11, numpy) and its tests (pytest)
  python3-dev python3-numpy python3-pytest python3-pybind11
  # XNNPACK delegate (optional at build time; CMakeLists.txt turns it on when present)
  libxnnpack-dev libpthreadpool-dev
)
# ---- bench: `make bench` only (scripts/install-deps.sh --bench): the ONNX twin of the synthetic
# MobileNet v2 is written with python3-onnx, reading the .tflite with python3-flatbuffers.
if [ "${1:-}" = "--bench" ]; then
  packages+=(python3-onnx python3-flatbuffers python3-numpy)
  command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
fi
# hardening: `make test-asan` and `make fuzz` build with clang and its sanitizer/libFuzzer runtimes.
if [ "${1:-}" = "--sanitizers" ]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/tmp/edgerun-apt.log 2>&1; then
  # The package lists may be stale or absent on a fresh machine: refresh once and retry.
  "${sudo_cmd[@]}" apt-get update -q >>/tmp/edgerun-apt.log 2>&1 || true
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >>/tmp/edgerun-apt.log 2>&1 \
    || { echo "install-deps: apt-get failed, see /tmp/edgerun-apt.log" >&2; tail -20 /tmp/edgerun-apt.log >&2; exit 1; }
fi
