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
)
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
