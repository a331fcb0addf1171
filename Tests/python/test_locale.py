"""HTTP's case-insensitive names are matched by ASCII rules whatever the process's
locale (Sources/CCurlShim/include/ncascii.h). In a Turkish locale glibc's strcasecmp
does not fold 'I' (tr_TR.UTF-8) or folds it to a dotless i (ISO-8859-9), and Python
sets LC_CTYPE from the environment at start-up: a Turkish user's application is in
that locale. The library must still read a "LOCATION" header as Location."""
import os
import shutil
import subprocess
import sys

import pytest

import netcore


@pytest.fixture(scope="module")
def turkish_env(tmp_path_factory):
    """The environment of a process in tr_TR.UTF-8, compiled into a temporary
    directory (LOCPATH) so that nothing is installed."""
    localedef = shutil.which("localedef")
    if not localedef or not os.path.exists("/usr/share/i18n/locales/tr_TR"):
        pytest.skip("no localedef or no tr_TR locale source (Debian's locales package)")
    d = tmp_path_factory.mktemp("locale")
    p = subprocess.run([localedef, "-i", "tr_TR", "-f", "UTF-8", str(d / "tr_TR.UTF-8")],
                       capture_output=True, text=True, timeout=120)
    if not (d / "tr_TR.UTF-8").exists():
        pytest.skip(f"localedef could not compile tr_TR.UTF-8: {p.stderr[-300:]}")
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(netcore.__file__)))
    return dict(os.environ, LOCPATH=str(d), LC_ALL="tr_TR.UTF-8", PYTHONPATH=package_dir)


SCRIPT = """
import ctypes, locale, sys
import netcore
print(locale.setlocale(locale.LC_CTYPE))
# The hazard is real in this process: the C library's own folding differs.
print(ctypes.CDLL(None).strcasecmp(b"LOCATION", b"location") != 0)
with netcore.Client({"base_url": sys.argv[1]}) as c:
    r = c.get("/redirect", params={"name": "LOCATION", "to": "/echo"})
    print(r.status_code, r.url.endswith("/echo"), [h.status_code for h in r.history])
"""


def test_a_turkish_locale_still_reads_an_upper_case_location(base, turkish_env):
    p = subprocess.run([sys.executable, "-c", SCRIPT, base], env=turkish_env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    ctype, hazard, result = p.stdout.splitlines()
    assert ctype == "tr_TR.UTF-8"
    if hazard != "True":
        pytest.skip("this C library folds 'I' in tr_TR.UTF-8 as in C: nothing to show")
    assert result == "200 True [302]", p.stdout
