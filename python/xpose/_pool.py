"""_pool.py: a bounded cache of the memory behind large NumPy results, so that repeated calls skip page faults.

A fresh 256 MiB result costs the kernel ~35 ms of page faults and zeroing on the 2-core CI machine, more than the
transpose into it (~22 ms): glibc maps every allocation over 32 MiB anew and unmaps it on free. Here such results
live on anonymous private mappings whose pages, once the last array on them is gone, wait in this cache (marked
MADV_FREE, so the kernel may take them back under memory pressure) for the next result of the same size. Bounded by
set_result_cache (0 turns it off and releases what it holds); docs/tuning.md, "Python: result cache"."""
import mmap
import os
import threading

# Results from here up go through the cache: below glibc's largest mmap threshold (32 MiB on 64-bit), freed results
# come back from the heap already faulted in, and the cache measured no gain (docs/tuning.md).
MIN_BYTES = 32 << 20
_PAGE = mmap.PAGESIZE
_OK = hasattr(mmap, "MAP_PRIVATE") and hasattr(mmap, "MAP_ANONYMOUS")
_HUGE = getattr(mmap, "MADV_HUGEPAGE", None)  # as NumPy asks for its large arrays: 2 MiB faults, not 4 KiB ones
_FREE = getattr(mmap, "MADV_FREE", None)


def _default_limit():
    """XPOSE_RESULT_CACHE (bytes, K/M/G suffixes; 0: off), else 1 GiB or 1/16 of the memory, the smaller."""
    env = os.environ.get("XPOSE_RESULT_CACHE")
    if env:
        s = env.strip().upper().rstrip("B")
        mul = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
        try:
            return max(0, int(float(s[:-1] if mul > 1 else s) * mul))
        except ValueError:
            pass  # an unreadable setting: the default
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = 16 << 30
    return min(1 << 30, ram // 16)


_limit = _default_limit() if _OK else 0
_idle = []  # (bytes, mmap) that no array uses, oldest first
_held = 0  # their bytes
_lock = threading.RLock()
_busy = False  # inside a critical section: a block freed by a collection there re-enters on this thread


def _reset_lock():
    global _lock, _busy
    _lock, _busy = threading.RLock(), False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_lock)  # another thread may have held it at fork


class _Block:
    """The base of a cached result: its __array_interface__ points into `mem`, which returns to the cache when the
    last array on it is gone (NumPy's views keep this object, not an array, as their base)."""

    def __init__(self, mem, size, ptr):
        self.mem, self.size = mem, size
        self.__array_interface__ = {"shape": (size,), "typestr": "|u1", "data": (ptr, False), "version": 3}

    def __del__(self):
        try:
            _give(self.size, self.mem)
        except Exception:  # interpreter shutdown: the mapping goes with the process
            pass


def _critical(fn, *args):
    """fn(*args) under the lock, or None where this thread is already inside (a collection re-entered)."""
    global _busy
    with _lock:
        if _busy:
            return None
        _busy = True
        try:
            return fn(*args)
        finally:
            _busy = False


def _take_locked(size):
    global _held
    for i in range(len(_idle) - 1, -1, -1):
        if _idle[i][0] == size:
            _held -= size
            return _idle.pop(i)[1]
    return None


def _trim_locked(room):
    """Drops the oldest idle blocks until `room` more bytes fit under the limit; returns them to unmap unlocked."""
    global _held
    gone = []
    while _idle and _held + room > _limit:
        s, m = _idle.pop(0)
        _held -= s
        gone.append(m)
    return gone


def _give_locked(size, mem):
    global _held
    if size > _limit:
        return [mem]
    gone = _trim_locked(size)
    _idle.append((size, mem))
    _held += size
    return gone


def _give(size, mem):
    if size > _limit:
        mem.close()
        return
    if _FREE is not None:
        try:
            mem.madvise(_FREE)  # reclaimable while idle; pages the kernel leaves alone come back without faults
        except OSError:
            pass
    gone = _critical(_give_locked, size, mem)
    for m in gone if gone is not None else (mem,):
        m.close()


def empty(np, shape, dtype, nbytes):
    """A new C-contiguous, writable NumPy array of `shape` and `dtype` (nbytes its size), on cached memory where
    the cache takes it, else np.empty's. Its contents are undefined, as np.empty's."""
    if nbytes < MIN_BYTES or nbytes > _limit or dtype.hasobject:
        return np.empty(shape, dtype)
    size = -(-nbytes // _PAGE) * _PAGE
    mem = _critical(_take_locked, size)
    if mem is None:
        try:
            mem = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        except OSError:
            return np.empty(shape, dtype)
        if _HUGE is not None:
            try:
                mem.madvise(_HUGE)
            except OSError:
                pass
    import ctypes
    c = ctypes.c_char.from_buffer(mem)  # the address; the export ends with c, so that close() can unmap later
    ptr = ctypes.addressof(c)
    del c
    return np.asarray(_Block(mem, size, ptr))[:nbytes].view(dtype).reshape(shape)


def set_limit(nbytes):
    """Sets the most bytes idle results may hold (0: off); releases what is over it now. Returns the old limit."""
    global _limit
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"xpose: the result cache limit must be >= 0 bytes, got {nbytes}")
    if not _OK:
        return 0
    old = _limit

    def change():
        global _limit
        _limit = nbytes
        return _trim_locked(0)

    for m in _critical(change) or ():  # None: re-entered from a collection, which cannot call this
        m.close()
    return old


def info():
    with _lock:
        return {"limit": _limit, "idle_bytes": _held, "idle_blocks": len(_idle), "min_bytes": MIN_BYTES}
