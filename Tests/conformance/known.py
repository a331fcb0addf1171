"""Where libnetcore differs from the reference clients today: the one place to say so.

PENDING: the library is being fixed on these points; each check asserts the correct
behaviour (what requests / httpx / curl do) and is an expected failure until its fix
lands (pytest's ``xfail(strict=True)``: once it passes, the run fails with XPASS until
its entry here is removed).

BY_DESIGN: differences the library keeps on purpose; the check asserts the library's
documented behaviour instead, and the table says why.

Keys are check names: the test function's name without ``test_``, optionally with
its parameters (``redirect_post[307-relative]``); a name without parameters covers
all of them.
"""

PENDING: dict = {}

BY_DESIGN = {
    "ported_reason_phrase": "Response.reason_phrase is the standard phrase of the status "
                            "(http.HTTPStatus): libcurl does not keep the server's own words, which "
                            "httpx returns (httpbin says NOT FOUND) (docs/python.md)",
    "status_codes": "raw mode: a status >= 400 raises netcore.HTTPError carrying the response "
                    "(docs/errors.md, as requests' raise_for_status()); requests returns it. The "
                    "check compares the status either way",
    "status_envelope": "envelope mode: a JSON answer without the envelope is a ParseError, a 4xx an "
                       "HTTPError (docs/errors.md); requests has no envelope",
    "coalescing": "identical GETs in flight at once share one transfer: the server sees one request "
                  "where requests sends each (README, Coalescing); `coalesce: false` sends each",
    "redirect_put": "a PUT redirected by a 301 or 302 stays a PUT with its body (docs/abi.md: only a "
                    "POST becomes a GET, as the Fetch standard and curl do); requests turns it into a GET "
                    "on a 302 and drops the body on a 301",
    "params_bool": "a bool parameter is sent as true/false (JSON's spelling, the same in C, Swift and "
                   "Python); requests sends str(True) = True",
}
