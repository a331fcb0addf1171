#!/usr/bin/env bash
# The conformance suite's servers from Debian: nginx-light (TLS, HTTP/2, static files,
# a proxy to httpbin) and tinyproxy, plus openssl (the suite's test CA) and curl (a
# reference client). Installs only what is missing, with sudo when not root, as
# scripts/install-deps.sh does. httpbin and gunicorn come from PyPI, into the suite's
# venv (Tests/conformance/run.sh).
#
# Exit status 0: every server is there. Otherwise the last line on stderr says what
# could not be installed (run.sh then skips the suite with that reason).
set -euo pipefail

need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v tinyproxy >/dev/null 2>&1 || [ -x /usr/bin/tinyproxy ] || need+=(tinyproxy)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v curl >/dev/null 2>&1 || need+=(curl)
[ ${#need[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "conformance install: ${need[*]} missing and apt-get is not available; install them with your package manager" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "conformance install: ${need[*]} missing, not root and no sudo" >&2
    exit 1
  fi
  sudo="sudo"
fi
echo "conformance install: installing ${need[*]}"
# A package's own service (nginx on port 80, tinyproxy on 8888) is none of the suite's
# business: the suite starts its own copies on free ports.
if ! $sudo apt-get update -qq >/dev/null 2>&1 \
   || ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1; then
  echo "conformance install: apt-get could not install ${need[*]}" >&2
  exit 1
fi
