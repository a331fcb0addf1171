#!/usr/bin/env bash
# The last step of `make install`: refreshes the dynamic loader's cache (ldconfig)
# when the library was just installed into a directory the loader searches, so a
# program linked with -lnetcore runs without LD_LIBRARY_PATH or an rpath.
#
#   scripts/ldconfig-after-install.sh LIBDIR     (LIBDIR: $(PREFIX)/lib, without DESTDIR)
#
# ldconfig runs only when all of these hold, and the line printed says which did not:
#   - DESTDIR is empty: a staged install (a package being built) is not where the
#     library will live; the package's own install step runs ldconfig;
#   - LDCONFIG is not empty (LDCONFIG= turns the step off; LDCONFIG=path runs another
#     program: the tests pass a recorder);
#   - the user is root: only root may rewrite /etc/ld.so.cache;
#   - LIBDIR is a system directory: /lib, /usr/lib (and their lib64 forms) or a
#     directory ldconfig reads from /etc/ld.so.conf (on Debian /usr/local/lib and the
#     multiarch directories). A private prefix (PREFIX=$HOME/.local, /opt/netcore) is
#     not: run programs against it with an rpath or LD_LIBRARY_PATH (README,
#     "C quick start").
# Never fails the install: a failing ldconfig is reported, and the install stands.
set -uo pipefail

libdir=${1:?usage: $0 LIBDIR}
run=${LDCONFIG-ldconfig}

if [[ -n ${DESTDIR:-} ]]; then
  echo "ldconfig: not run (DESTDIR is set: the package's own install runs it)"
  exit 0
fi
if [[ -z $run ]]; then
  echo "ldconfig: not run (LDCONFIG is empty)"
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "ldconfig: not run (not root); if $libdir is a system directory, run: sudo ldconfig"
  exit 0
fi

# The directories the loader searches: the built-in ones, and those ldconfig reads
# from its configuration (-v lists them; -N -X: build no cache, touch no link).
query=$(command -v ldconfig || echo /sbin/ldconfig)
searched() {
  printf '%s\n' /lib /usr/lib /lib64 /usr/lib64
  "$query" -v -N -X 2>/dev/null | sed -n 's|^\(/[^:]*\):.*|\1|p'
}
target=$(realpath -m "$libdir")
while IFS= read -r dir; do
  if [[ $(realpath -m "$dir") == "$target" ]]; then
    if "$run"; then
      echo "ldconfig: ran $run ($libdir is searched by the dynamic loader)"
    else
      echo "ldconfig: $run failed; run it by hand so that programs find libnetcore.so.0" >&2
    fi
    exit 0
  fi
done < <(searched)
echo "ldconfig: not run ($libdir is not searched by the dynamic loader: link programs with" \
  "-Wl,-rpath,$libdir or run them with LD_LIBRARY_PATH=$libdir)"
