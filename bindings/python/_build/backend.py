"""A minimal PEP 517 build backend for the flowagent package (pure Python, offline).

The wheel holds flowagent/*.py and the C library as flowagent/libflowagent_c.so: the file that
$FLOWAGENT_LIBRARY names, or one staged next to the package. A relative $FLOWAGENT_LIBRARY is taken
from the directory pip was started in (pip runs this backend from bindings/python, so the shell's
$PWD is used, then the repository root). A wheel without the library would import but fail at the
first call, so building one is an error unless FLOWAGENT_ALLOW_NO_LIBRARY=1 (a library installed
system-wide, found by the loader, is then used).
"""
import base64
import hashlib
import os
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _project_version():
    """The version from the project() line of the repository's CMakeLists.txt (its one source)."""
    import re
    with open(os.path.join(os.path.dirname(os.path.dirname(HERE)), "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(flowagent\s+VERSION\s+([0-9.]+)", f.read())
    if not m:
        raise RuntimeError("no version in the project() line of CMakeLists.txt")
    return m.group(1)


NAME, VERSION = "flowagent", _project_version()


def _library():
    """The C library to ship, or None when the host explicitly allows a wheel without it."""
    named = os.environ.get("FLOWAGENT_LIBRARY", "")
    if named:
        if os.path.isabs(named):
            candidates = [named]
        else:
            bases = [os.environ.get("PWD", ""), os.path.dirname(os.path.dirname(HERE)), os.getcwd()]
            candidates = [os.path.join(b, named) for b in bases if b]
        for c in candidates:
            if os.path.isfile(c):
                return os.path.realpath(c)
        raise RuntimeError(f"FLOWAGENT_LIBRARY={named!r} does not name a file (looked at {candidates}); "
                           "build it first (scripts/flowagent.sh --version builds build/release)")
    staged = os.path.join(HERE, NAME, "libflowagent_c.so")
    if os.path.isfile(staged):
        return staged
    if os.environ.get("FLOWAGENT_ALLOW_NO_LIBRARY") == "1":
        return None
    raise RuntimeError("no libflowagent_c to put into the wheel: set FLOWAGENT_LIBRARY to the built "
                       "library (build/release/capi/libflowagent_c.so.0), or FLOWAGENT_ALLOW_NO_LIBRARY=1 "
                       "to rely on a system-wide installation")


def _files():
    pkg = os.path.join(HERE, NAME)
    # The modules and py.typed (PEP 561: the package's annotations are for type checkers).
    out = [(os.path.join(pkg, f), f"{NAME}/{f}") for f in sorted(os.listdir(pkg)) if f.endswith(".py") or f == "py.typed"]
    lib = _library()
    if lib:
        out.append((lib, f"{NAME}/libflowagent_c.so"))
    return out


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = _files()
    has_lib = any(a.endswith(".so") for _, a in files)
    tag = "py3-none-linux_x86_64" if has_lib else "py3-none-any"
    name = f"{NAME}-{VERSION}-{tag}.whl"
    dist = f"{NAME}-{VERSION}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\nSummary: flowagent Python bindings\n".encode()
    wheel = f"Wheel-Version: 1.0\nGenerator: flowagent-backend\nRoot-Is-Purelib: {'false' if has_lib else 'true'}\nTag: {tag}\n".encode()
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, arc in files:
            with open(path, "rb") as f:
                data = f.read()
            z.writestr(arc, data)
            records.append(_record_line(arc, data))
        for arc, data in ((f"{dist}/METADATA", meta), (f"{dist}/WHEEL", wheel)):
            z.writestr(arc, data)
            records.append(_record_line(arc, data))
        records.append(f"{dist}/RECORD,,")
        z.writestr(f"{dist}/RECORD", "\n".join(records) + "\n")
    return name


def build_sdist(sdist_directory, config_settings=None):
    import tarfile
    name = f"{NAME}-{VERSION}"
    path = os.path.join(sdist_directory, f"{name}.tar.gz")
    with tarfile.open(path, "w:gz") as t:
        for rel in ["pyproject.toml", "_build/backend.py"] + [f"{NAME}/{f}" for f in os.listdir(os.path.join(HERE, NAME))
                                                                 if f.endswith(".py")]:
            t.add(os.path.join(HERE, rel), f"{name}/{rel}")
    return os.path.basename(path)
