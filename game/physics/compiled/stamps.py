"""numba checks a cached function against its own source file only; a kernel that links code
of other files into itself (a callee's, the bundles' field layout) must go stale with them too,
or a change there would be missed by the compiled execution until the cache was cleared."""
import hashlib


def source_stamp(path):
    """SHA-256 of a source file's bytes (numba stamps a cached function's own file so)."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def depend_on(dispatchers, modules):
    """Make each cached dispatcher's cache carry the stamps of the modules' files as well as
    its own file's (numba's index then no longer matches once any of them changes)."""
    stamps = tuple(source_stamp(m.__file__) for m in modules)
    for dispatcher in dispatchers:
        cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
        if cache_file is not None and hasattr(cache_file, "_source_stamp"):
            cache_file._source_stamp = (cache_file._source_stamp,) + stamps


def dispatchers(namespace):
    """The numba dispatchers a module (its ``globals()``) defines."""
    return [x for x in namespace.values() if hasattr(x, "_cache") and hasattr(x, "py_func")
            and x.py_func.__module__ == namespace["__name__"]]
