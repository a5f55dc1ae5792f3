"""Worker processes: query batches of a lazy run scored on every core of the machine.

A batch's preparation and kernels hold Python's lock between NumPy and Polars calls, so
threads scale poorly (a one-off trial on 2 cores, not kept in bench/: 1.25x); processes
do not share it. The workers are
plain Python processes started with ``sys.executable`` and this module as their program
(``serve``), not ``multiprocessing``'s "spawn" workers, which re-run the user's main script
in every worker (a script without an ``if __name__ == "__main__":`` guard would run again,
side effects included). Each worker receives a pickled task (a module-level function and its
arguments), runs it, and sends back its answer, the warnings it raised and, when it fails,
its exception. The pool is started on first use, kept for later calls of the process
(starting a worker costs an import of the library) and stopped when the
process exits, or when a call is interrupted (a worker still busy cannot be reused).

How many: ``jobs(n_jobs)``. ``None`` is the environment variable ``TRUNC_ACCESSOR_N_JOBS``
when set, else the size of Polars' thread pool (the machine's cores, or
``POLARS_MAX_THREADS``); each worker's Polars uses that many threads divided by the number
of workers, so the call stays within the cores Polars would use.
"""
from __future__ import annotations

import atexit
import collections
import contextlib
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, BinaryIO

from trunc_accessor.errors import ParameterError
from trunc_accessor.warn import stack_level

ENVIRONMENT = "TRUNC_ACCESSOR_N_JOBS"

_BOOT = ("import pickle, sys; sys.path[:] = pickle.load(sys.stdin.buffer); "
         "from trunc_accessor.engine.workers import serve; serve()")


class WorkerError(RuntimeError):
    """A worker process ended without answering (killed, out of memory)."""


class _Unloadable(Exception):
    """A task a worker could not unpickle (e.g. a function defined in ``__main__``)."""


def cores() -> int:
    """The threads Polars runs on (the machine's cores, or ``POLARS_MAX_THREADS``)."""
    import polars as pl

    return int(pl.thread_pool_size())


def jobs(n_jobs: int | None) -> int:
    """The number of worker processes for ``n_jobs=`` (module doc), checked: a whole number
    ≥ 1, or -1 for every core."""
    if n_jobs is None:
        text = os.environ.get(ENVIRONMENT)
        if text is None or not text.strip():
            return cores()
        try:
            n_jobs = int(text)
        except ValueError:
            raise ParameterError(f"the environment variable {ENVIRONMENT} must be a whole "
                                 f"number ≥ 1 or -1 (every core), not {text!r}") from None
        where = f"the environment variable {ENVIRONMENT}"
    else:
        where = "n_jobs="
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or not (n_jobs >= 1
                                                                         or n_jobs == -1):
        raise ParameterError(f"{where} must be a whole number ≥ 1 or -1 (every core), "
                             f"not {n_jobs!r}")
    return cores() if n_jobs == -1 else n_jobs


class _Worker:
    def __init__(self, threads: int):
        env = dict(os.environ, POLARS_MAX_THREADS=str(threads), OMP_NUM_THREADS="1",
                   OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        env.pop(ENVIRONMENT, None)
        self.process = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, env=env)
        self.ready = False
        self.send(list(sys.path))

    def send(self, message) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        pickle.dump(message, stdin, protocol=pickle.HIGHEST_PROTOCOL)
        stdin.flush()

    def call(self, task: bytes):
        stdout = self.process.stdout
        assert stdout is not None
        if not self.ready:  # its first word: the library imported (or it could not start)
            try:
                self.ready = pickle.load(stdout) == "ready"
            except (EOFError, OSError, pickle.UnpicklingError):
                self.process.wait()
                raise _Unloadable("a worker process could not start") from None
        try:
            self.send(task)  # the task's own pickle, unpickled by the worker's ``_run``
            return pickle.load(stdout)
        except (EOFError, OSError, pickle.UnpicklingError):
            code = self.process.wait()
            raise WorkerError(f"a worker process ended without answering (exit code {code}): "
                              f"out of memory? Lower batch_rows= or n_jobs=") from None

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            if self.process.stdin:
                self.process.stdin.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Pool:
    """``n`` worker processes, each with ``threads`` Polars threads (module doc)."""

    def __init__(self, n: int, threads: int):
        self.n, self.threads = n, threads
        self._workers: list[_Worker] = []
        try:
            for _ in range(n):
                self._workers.append(_Worker(threads))
        except BaseException:
            for w in self._workers:
                w.stop()
            raise
        self._idle: queue.SimpleQueue[_Worker] = queue.SimpleQueue()
        for w in self._workers:
            self._idle.put(w)
        self._threads = ThreadPoolExecutor(max_workers=n, thread_name_prefix="trunc_accessor")

    def alive(self) -> bool:
        return all(w.process.poll() is None for w in self._workers)

    def _call(self, task: bytes):
        worker = self._idle.get()
        try:
            return worker.call(task)
        finally:
            self._idle.put(worker)

    def map(self, function: Callable, arguments: Iterable[tuple]) -> Iterator[Any]:
        """``function(*args)`` for each ``args`` on the workers, answers in order. At most
        twice ``n`` tasks are in flight (their arguments are pickled as they are sent). A
        worker's exception is raised here (the tasks after it are not started); its warnings
        are raised again here, each before its task's answer is given."""
        pending: collections.deque[Future] = collections.deque()
        try:
            for args in arguments:
                task = pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL)
                pending.append(self._threads.submit(self._call, task))
                if len(pending) >= 2 * self.n:
                    yield _answer(pending.popleft().result())
            while pending:
                yield _answer(pending.popleft().result())
        except BaseException:
            for f in pending:
                f.cancel()
            if any(not f.done() for f in pending):
                _discard(self)  # busy workers: their answers would be read by the next call
            raise

    def stop(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
        for w in self._workers:
            w.stop()


def _answer(message):
    kind, value, caught = message
    for category, text in caught:
        warnings.warn(text, category, stacklevel=stack_level() + 1)
    if kind == "error":
        raise value
    if kind == "unloadable":
        raise _Unloadable(value)
    return value


_POOL: Pool | None = None
_LOCK = threading.Lock()


def pool(n: int) -> Pool:
    """The process's pool of ``n`` workers (started, or restarted with another ``n``)."""
    global _POOL
    with _LOCK:
        threads = max(1, cores() // n)
        if _POOL is not None and (_POOL.n, _POOL.threads) == (n, threads) and _POOL.alive():
            return _POOL
        if _POOL is not None:
            _POOL.stop()
        _POOL = Pool(n, threads)
        return _POOL


def _discard(p: Pool) -> None:
    global _POOL
    with _LOCK:
        if _POOL is p:
            _POOL = None
    threading.Thread(target=p.stop, daemon=True).start()


@atexit.register
def shutdown() -> None:
    """Stop the worker processes (they also stop when this process ends)."""
    global _POOL
    with _LOCK:
        if _POOL is not None:
            _POOL.stop()
            _POOL = None


def scored(function: Callable, tasks: Iterable[tuple], n: int) -> Iterator[Any]:
    """``function(*task)`` for each task, answers in order, on the pool of ``n`` workers; from
    a task a worker cannot load (``_Unloadable``) on, the tasks are run in this process."""
    sent: collections.deque[tuple] = collections.deque()
    remaining = iter(tasks)

    def recorded():
        for task in remaining:
            sent.append(task)
            yield task

    try:
        workers = pool(n)
    except OSError:  # no interpreter to start (an embedded Python): run them here
        workers = None
    if workers is None:
        yield from (function(*task) for task in remaining)
        return
    try:
        for answer in workers.map(function, recorded()):
            sent.popleft()
            yield answer
    except _Unloadable:
        for task in [*sent, *remaining]:
            yield function(*task)


def portable(function: Callable, arguments: tuple) -> bool:
    """Whether a task can be sent to a worker: picklable by reference to importable code."""
    try:
        pickle.dumps((function, arguments), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - any pickling failure means "run it here"
        return False
    return True


def serve() -> None:
    """A worker's loop: read a task, run it, answer (until its input closes)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; ^C reaches it too
    inbox = sys.stdin.buffer
    outbox: BinaryIO = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not corrupt the answers
    outbox.write(pickle.dumps("ready"))
    outbox.flush()
    while True:
        try:
            data = pickle.load(inbox)
        except EOFError:
            return
        outbox.write(_run(data))
        outbox.flush()


def _run(data: bytes) -> bytes:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            function, args = pickle.loads(data)
        except Exception:  # noqa: BLE001 - said to the parent, which runs the task itself
            message: tuple = ("unloadable", traceback.format_exc(), [])
        else:
            try:
                message = ("ok", function(*args), [])
            except Exception as e:  # noqa: BLE001 - raised again in the parent
                message = ("error", e, [])
        message = (message[0], message[1], [(w.category, str(w.message)) for w in caught])
    try:
        return pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - an answer or exception that does not pickle
        text = "".join(traceback.format_exception_only(message[1])) if message[0] == "error" \
            else "an answer that cannot be sent back"
        return pickle.dumps(("error", WorkerError(f"in a worker process: {text}"), message[2]))
