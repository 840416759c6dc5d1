"""Self-play in parallel: local worker processes or Ray tasks.

:func:`run_selfplay` splits ``games`` into jobs (:func:`plan_jobs`), runs each job as
:func:`alphago.train.selfplay.selfplay_job` and merges the results in job order, so
the outcome depends only on the arguments, not on which job finished first:

- ``workers`` = 1 without Ray: one job in this process (no pool);
- ``workers`` > 1: one job per process of a ``ProcessPoolExecutor`` with the "spawn"
  start method (a fresh interpreter: no forked torch thread pools or locks);
- ``ray_address``: the same jobs as Ray tasks (``ray.init(address=ray_address)``
  unless Ray is already initialised in this process, in which case that connection is
  used and ``ray_address`` is not looked at). Every node of the cluster needs this
  package installed. Ray is imported only on this path.

Each job gets ``threads`` torch threads (default 1: with one worker per core every
core runs its own games, which keeps them busier than one process with several
threads, whose batches spend a good part of each step in single-threaded search code).
Job ``i`` is seeded ``seed + i * SEED_STRIDE``, so the jobs of one run, and of runs
whose seeds differ by less than the stride, never repeat a game.

``device`` puts every job's network there (``"cuda"``: each worker process opens its
own CUDA context on the same GPU, and its lock-step games fill the batches; a few
processes with many ``parallel_games`` each keep one GPU busy where one process's
Python search alone could not). A local run checks the device and precision before
any process starts (ValueError, one line). Ray tasks take the device as given and
reserve no GPU for it: give the cluster's nodes the GPU they will use.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any, NamedTuple, TypeVar

from alphago.nets.precision import flush_denormals

from .selfplay import SelfPlayConfig, SelfPlayResult, selfplay_job

__all__ = ["SEED_STRIDE", "Job", "plan_jobs", "run_jobs", "run_selfplay"]

R = TypeVar("R")

#: Seed distance between consecutive jobs of one run.
SEED_STRIDE = 1 << 32


class _Where(NamedTuple):
    """How each job runs its network: ``selfplay_job``'s arguments after ``seed``
    (``progress`` is None in other processes)."""

    threads: int
    progress: None = None
    device: str = "cpu"
    precision: str | None = None


class Job(NamedTuple):
    """One worker's share of a run."""

    games: int
    seed: int


def _check_int(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, not {value}")
    return value


def plan_jobs(games: int, workers: int, seed: int) -> list[Job]:
    """``games`` split over ``workers`` jobs as evenly as possible (the first jobs
    take the remainder); jobs with no game are left out."""
    _check_int("games", games, 0)
    _check_int("workers", workers, 1)
    _check_int("seed", seed, 0)
    base, extra = divmod(games, workers)
    jobs = [Job(base + (i < extra), seed + i * SEED_STRIDE) for i in range(workers)]
    return [job for job in jobs if job.games > 0]


def run_selfplay(
    weights: bytes,
    net_config: dict[str, Any],
    config: SelfPlayConfig,
    games: int,
    seed: int,
    workers: int = 2,
    ray_address: str | None = None,
    progress: Callable[[int], None] | None = None,
    *,
    threads: int = 1,
    device: str = "cpu",
    precision: str | None = None,
) -> SelfPlayResult:
    """Play ``games`` self-play games over ``workers`` jobs (module docstring).

    Args:
        weights: the bytes of a weights file (``alphago.nets.weights.weights_bytes``).
        net_config: the net's ``NetConfig.to_dict()`` (checked against the file).
        config: the self-play settings.
        games: games in all.
        seed: fixes the run.
        workers: jobs (local processes, or Ray tasks).
        ray_address: run the jobs on this Ray cluster ("auto", "ray://host:10001",
            ...); None runs them locally.
        progress: called with the number of finished games: after each game when
            the job runs in this process, after each job otherwise.
        threads: torch threads per job.
        device: every job's network device ("cpu", "cuda", "cuda:N", "auto").
        precision: the networks' precision (None: the device's default).

    Returns:
        The merged results in job order; ``seconds`` is this call's wall-clock time.
    """
    start = time.monotonic()
    if not isinstance(config, SelfPlayConfig):
        raise TypeError("config must be a SelfPlayConfig")
    _check_int("threads", threads, 1)
    if ray_address is None:
        # Here, not in each worker: one clear line before any process starts.
        from ..nets.precision import resolve_device, resolve_precision

        resolve_precision(precision, resolve_device(device))
    results = run_jobs(
        selfplay_job,
        (weights, net_config, config),
        games,
        seed,
        workers,
        ray_address,
        progress,
        threads=threads,
        device=device,
        precision=precision,
    )
    merged = SelfPlayResult.merge(results)
    merged.seconds = time.monotonic() - start
    return merged


def run_jobs(
    task: Callable[..., R],
    head: tuple[Any, ...],
    games: int,
    seed: int,
    workers: int = 2,
    ray_address: str | None = None,
    progress: Callable[[int], None] | None = None,
    *,
    threads: int = 1,
    device: str = "cpu",
    precision: str | None = None,
) -> list[R]:
    """``games`` split over ``workers`` jobs (:func:`plan_jobs`), each run as
    ``task(*head, games, seed, threads, progress, device, precision)`` in this
    process (one job), in worker processes or as Ray tasks (module docstring);
    the results in job order (one job of no game when ``games`` is 0). ``task``
    must be a module-level function (picklable); ``progress`` reaches it only
    when it runs here."""
    where = _Where(threads, device=device, precision=precision)
    jobs = plan_jobs(games, workers, seed)
    if not jobs:
        return [task(*head, 0, seed, *where)]
    if ray_address is not None:
        return _on_ray(task, head, jobs, where, ray_address, progress)
    if len(jobs) == 1:
        job = jobs[0]
        return [task(*head, job.games, job.seed, threads, progress, device, precision)]
    return _on_processes(task, head, jobs, where, progress)


def _on_processes(
    task: Callable[..., R],
    head: tuple[Any, ...],
    jobs: list[Job],
    where: _Where,
    progress: Callable[[int], None] | None,
) -> list[R]:
    context = multiprocessing.get_context("spawn")
    results: list[R | None] = [None] * len(jobs)
    finished = 0
    pool = ProcessPoolExecutor(
        max_workers=len(jobs), mp_context=context, initializer=flush_denormals
    )
    try:
        futures: dict[Future[R], int] = {
            pool.submit(task, *head, job.games, job.seed, *where): i
            for i, job in enumerate(jobs)
        }
        for future in as_completed(futures):
            i = futures[future]
            results[i] = future.result()
            finished += jobs[i].games
            if progress is not None:
                progress(finished)
    except BaseException:
        _stop_now(pool)
        raise
    pool.shutdown(wait=True)
    return [r for r in results if r is not None]


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """Ends the pool's workers at once: after an error, Ctrl-C or SIGTERM (which
    ``alphago`` turns into SystemExit) a worker would otherwise play out its whole job,
    minutes of games nobody reads, beside the run that resumes."""
    # The executor has no public way to end running workers before Python 3.14
    # (terminate_workers); its process table has been there since 3.2. Shutdown drops
    # the executor's reference, so the table is held first, and read after it: its
    # manager thread may still have added a worker.
    table = pool._processes if pool._processes is not None else {}
    pool.shutdown(wait=False, cancel_futures=True)
    processes = list(table.values())
    for process in processes:
        process.terminate()
    # Waiting on the sentinels, not join(): the manager thread may reap a worker at
    # the same moment, and a second join() then returns before the exit is recorded.
    # With no worker started yet there is nothing to wait for (and wait([]) blocks).
    if processes:
        multiprocessing.connection.wait([process.sentinel for process in processes])


def _on_ray(
    task: Callable[..., R],
    head: tuple[Any, ...],
    jobs: list[Job],
    where: _Where,
    address: str,
    progress: Callable[[int], None] | None,
) -> list[R]:
    import ray

    if not ray.is_initialized():
        ray.init(address=address)
    remote = ray.remote(num_cpus=where.threads)(task)
    # Large arguments (weights files) go to the object store once for all tasks.
    head_refs = [ray.put(a) if isinstance(a, bytes) else a for a in head]
    refs = [remote.remote(*head_refs, job.games, job.seed, *where) for job in jobs]
    games = {ref: job.games for ref, job in zip(refs, jobs, strict=True)}
    pending = list(refs)
    finished = 0
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            finished += games[ref]
            if progress is not None:
                progress(finished)
    results: list[R] = ray.get(refs)
    return results
