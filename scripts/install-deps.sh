#!/usr/bin/env bash
# Installs the system packages libnetcore builds against, only when missing.
# Debian/Ubuntu: libcurl (OpenSSL flavour), OpenSSL's libcrypto and jansson headers, pkg-config, a C/C++
# compiler. Uses sudo when not root.
set -euo pipefail

need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
pkg-config --exists jansson 2>/dev/null || need+=(libjansson-dev)
# libcrypto's headers (request signing: HMAC-SHA256, SHA-256, base64)
pkg-config --exists libcrypto 2>/dev/null || need+=(libssl-dev)
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v c++ >/dev/null 2>&1 || need+=(g++)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v cmake >/dev/null 2>&1 || need+=(cmake)         # make test: the CMake install check
command -v objcopy >/dev/null 2>&1 || need+=(binutils)    # make install: strip + debug link
command -v abidiff >/dev/null 2>&1 || need+=(abigail-tools) # make test: the ABI baseline (abidw, abidiff)
[ ${#need[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${need[*]} and apt-get is not available; install them with your package manager" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
