"""How the package is layered, read from its source: _capi is a leaf holding the
one table of C functions, errors.py is the one place exceptions are built, the
modules import each other without a cycle and only at module level, and Client
and AsyncClient share BaseClient (_base.py) rather than each other's methods."""
import ast
import ctypes
import inspect
import os

import pytest

import netcore
from netcore import _capi, errors

PACKAGE_DIR = os.path.dirname(os.path.abspath(netcore.__file__))
MODULES = sorted(f for f in os.listdir(PACKAGE_DIR) if f.endswith(".py"))
TABLE_NAMES = [entry[0] for entry in _capi.TABLE]


def parse(module):
    with open(os.path.join(PACKAGE_DIR, module), encoding="utf-8") as f:
        tree = ast.parse(f.read(), module)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child.parent = node
    return tree


def package_imports(module):
    """The package modules ``module`` imports when it runs: its relative imports
    (``from . import x``, ``from .x import y``) and ``netcore.x`` ones, wherever they
    are, except under ``if TYPE_CHECKING:`` (read by type checkers only)."""
    names = {m[:-3] for m in MODULES}
    found = set()

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for orelse in child.orelse:
                    visit(orelse)
                continue
            if isinstance(child, ast.ImportFrom):
                module = child.module or ""
                if child.level == 1 or module == "netcore" or module.startswith("netcore."):
                    base = module[len("netcore"):].lstrip(".") if child.level == 0 else module
                    if base:
                        found.add(base.split(".")[0])
                    else:
                        found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.Import):
                found.update(alias.name.split(".")[1] for alias in child.names
                             if alias.name.startswith("netcore."))
            visit(child)

    visit(parse(module))
    return found & names


def import_cycles(graph):
    """Every cycle of ``graph`` (module -> imported modules), each once, as a path."""
    cycles, done = [], set()

    def walk(module, path):
        if module in path:
            cycle = path[path.index(module):]
            start = cycle.index(min(cycle))
            cycle = cycle[start:] + cycle[:start]
            if cycle not in cycles:
                cycles.append(cycle)
            return
        if module in done:
            return
        for imported in sorted(graph.get(module, ())):
            walk(imported, path + [module])
        done.add(module)

    for module in sorted(graph):
        walk(module, [])
    return [" -> ".join(c + c[:1]) for c in cycles]


def test_import_cycles_are_found():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a -> b -> c -> a"]
    assert import_cycles({"a": {"a"}}) == ["a -> a"]
    assert import_cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_no_import_cycle():
    """The modules form layers: none imports, even indirectly, one that imports it."""
    graph = {module[:-3]: package_imports(module) for module in MODULES}
    assert import_cycles(graph) == []
    # Both clients stand on _base, neither on the other.
    assert {"_base"} <= graph["client"] & graph["aio"]
    assert "client" not in graph["aio"] and "aio" not in graph["client"]


def test_no_function_local_import():
    """Every import is at module level: an import inside a function (or lambda) is
    how a cycle hides, and it costs a lookup at each call."""
    local = []
    for module in MODULES:
        for node in ast.walk(parse(module)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                body = node.body if isinstance(node.body, list) else [node.body]
                for statement in body:
                    local.extend(f"{module}:{inner.lineno} in {getattr(node, 'name', 'lambda')}"
                                 for inner in ast.walk(statement)
                                 if isinstance(inner, (ast.Import, ast.ImportFrom)))
    assert sorted(set(local)) == []


def test_clients_share_a_base_and_borrow_nothing():
    """Client and AsyncClient subclass BaseClient; neither takes a method from the
    other by assignment (``name = Client.name`` in a class body)."""
    assert netcore.Client.__mro__[1] is netcore.AsyncClient.__mro__[1]
    assert netcore.Client.__mro__[1].__name__ == "BaseClient"
    borrowed = []
    for module in MODULES:
        for cls in ast.walk(parse(module)):
            if isinstance(cls, ast.ClassDef):
                borrowed.extend(f"{module}:{node.lineno} {cls.name}.{ast.unparse(node)}"
                                for node in cls.body
                                if isinstance(node, (ast.Assign, ast.AnnAssign))
                                and isinstance(node.value, ast.Attribute))
    assert borrowed == []
    # The same constructor, and the same public names but the blocking/async pairs.
    assert inspect.signature(netcore.AsyncClient) == inspect.signature(netcore.Client)
    sync, asyn = ({n for n in dir(cls) if not n.startswith("_")}
                  for cls in (netcore.Client, netcore.AsyncClient))
    assert (sync - asyn, asyn - sync) == ({"fileno", "dispatch"}, {"aclose"})


def c_functions(tree):
    """Every ``C.nc_*`` attribute in a module's source, with its node."""
    return [(node.attr, node) for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "C" and node.attr.startswith("nc_")]


def test_capi_is_a_leaf_without_exceptions():
    tree = parse("_capi.py")
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add("." * node.level + (node.module or ""))
    assert imported <= {"__future__", "ctypes", "types", "typing", "._library"}, imported
    # No exception class defined or imported, and nothing raised but from the loader.
    assert not [v for v in vars(_capi).values()
                if isinstance(v, type) and issubclass(v, BaseException)]
    raised = {node.exc.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Raise) and isinstance(getattr(node, "exc", None), ast.Call)
              and isinstance(node.exc.func, ast.Name)}
    assert raised <= {"ImportError", "TypeError"}, raised  # TypeError: a wrong handle type


def test_every_c_function_used_is_declared_once_in_the_table():
    assert len(TABLE_NAMES) == len(set(TABLE_NAMES)), "a function is declared twice"
    used = set()
    for module in MODULES:
        tree = parse(module)
        used.update(name for name, _ in c_functions(tree))
        if module in ("_capi.py", "_library.py"):
            continue
        source = ast.unparse(tree)
        for word in ("CDLL", "cdll", "CFUNCTYPE", "load_library", "argtypes", "restype",
                     "errcheck"):
            assert word not in source, f"{module} uses ctypes.{word}: only _capi declares C"
    assert used and used <= set(TABLE_NAMES), used - set(TABLE_NAMES)
    # Every bound function is the table's, with the table's types.
    for name, argtypes, restype, *errcheck in _capi.TABLE:
        fn = getattr(_capi.C, name)
        assert (fn.argtypes, fn.restype) == ([_capi._ctype(t) for t in argtypes],
                                             _capi._ctype(restype)), name
        assert getattr(fn, "errcheck", None) is (errcheck[0] if errcheck else None), name


def test_every_status_is_checked():
    """An nc_status function is called through errors.check_call, or its status is
    assigned and handed to errors.error_for (nc_client_new, nc_client_send_sync)."""
    assert {"nc_client_send", "nc_client_new", "nc_response_header_at"} <= _capi.STATUS_FUNCTIONS
    assert not {"nc_client_fd", "nc_error_domain", "nc_response_status"} & _capi.STATUS_FUNCTIONS
    unchecked = []
    for module in MODULES:
        tree = parse(module)
        for name, node in c_functions(tree):
            if name not in _capi.STATUS_FUNCTIONS:
                continue
            parent = node.parent
            through_check_call = (isinstance(parent, ast.Call) and parent.args
                                  and parent.args[0] is node
                                  and getattr(parent.func, "id", None) == "check_call")
            assigned = (isinstance(parent, ast.Call) and parent.func is node
                        and isinstance(parent.parent, ast.Assign)
                        and [getattr(t, "id", None) for t in parent.parent.targets] == ["status"])
            if not (through_check_call or assigned):
                unchecked.append(f"{module}:{node.lineno} {name}")
    assert unchecked == []


def exception_classes():
    return {name for name, v in vars(errors).items()
            if isinstance(v, type) and issubclass(v, (errors.Error, errors.StatusError))}


def test_only_errors_py_builds_exceptions():
    """No module but errors.py instantiates a netcore exception (raising one that
    errors.error_for built is fine)."""
    classes = exception_classes()
    assert {"Error", "APIError", "StatusError", "InvalidState", "Cancelled"} <= classes
    built = []
    for module in MODULES:
        if module == "errors.py":
            continue
        for node in ast.walk(parse(module)):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name in classes or name in ("from_info", "status_error"):
                    built.append(f"{module}:{node.lineno} {name}")
    assert built == []


@pytest.mark.parametrize("status,klass", [
    (1, netcore.InvalidArgument), (2, netcore.InvalidState), (3, netcore.NoMemory),
    (4, netcore.Failed), (99, netcore.StatusError)])
def test_error_for_a_status(status, klass):
    exc = errors.error_for(status, function="nc_request_set_header", detail="invalid header 'X'")
    assert type(exc) is klass
    assert (exc.status, exc.function) == (status, "nc_request_set_header")
    assert exc.status_name == _capi.C.nc_status_str(status).decode()
    assert str(exc) == f"invalid header 'X': nc_request_set_header() returned {exc.status_name}"
    refusal = errors.error_for(status, message="the client is closed")
    assert type(refusal) is klass and str(refusal) == "the client is closed"
    with pytest.raises(klass):
        errors.check_call(lambda: status)
    assert errors.check_call(lambda *a: 0, 1, 2) is None


def test_error_for_an_nc_error():
    """An nc_error wins over the status: the typed Error, its data copied out."""
    handle, err = _capi.ClientHandle(), _capi.ErrorHandle()
    status = _capi.C.nc_client_new(b'{"timeout_ms": "soon"}', ctypes.byref(handle),
                                   ctypes.byref(err))
    assert status == netcore.Status.INVALID_ARGUMENT and err and not handle
    try:
        exc = errors.error_for(status, err, function="nc_client_new")
    finally:
        _capi.C.nc_error_free(err)
    assert type(exc) is netcore.InvalidConfig
    assert "'timeout_ms'" in exc.message and exc.domain == "NCClientErrorDomain"
    assert exc.info["code"] == netcore.ClientCode.INVALID_CONFIG
    # The same through the public API.
    with pytest.raises(netcore.InvalidConfig) as info:
        netcore.Client({"timeout_ms": "soon"})
    assert info.value.message == exc.message


def test_a_wrong_handle_type_is_a_type_error():
    C = _capi.C
    assert C.nc_response_status(_capi.ResponseHandle()) == 0  # NULL: allowed, 0
    for wrong in (_capi.RequestHandle(), _capi.ClientHandle(), _capi.ErrorHandle(),
                  _capi.TaskHandle(), _capi.JsonRef()):
        with pytest.raises(ctypes.ArgumentError) as info:
            C.nc_response_status(wrong)
        assert "TypeError" in str(info.value)
    with pytest.raises(ctypes.ArgumentError):  # an out-parameter of the wrong type
        C.nc_request_new(b"GET", b"/", ctypes.byref(_capi.ResponseHandle()))
    # Results come typed (a NULL one is false).
    retained = C.nc_response_retain(_capi.ResponseHandle())
    assert type(retained) is _capi.ResponseHandle and not retained

def test_status_functions_are_the_headers():
    """The table's nc_status marker agrees with netcore.h's declarations."""
    import re

    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    with open(os.path.join(root, "include", "netcore.h"), encoding="utf-8") as f:
        header = f.read()
    declared = set(re.findall(r"NC_API\s+nc_status\s+(nc_\w+)\s*\(", header))
    assert declared == set(_capi.STATUS_FUNCTIONS)
