"""Generators: determinism, the Lublin–Feitelson model's published means, Poisson and uniform."""

from __future__ import annotations

import math
import random
import statistics
import warnings

import pytest
from workload_helpers import TRACES

from fluxgraph.errors import WorkloadError
from fluxgraph.workload import LublinParams, Workload, daily_rates, lublin, poisson, uniform
from fluxgraph.workload.generators import _gamma_cdf
from fluxgraph.workload.swf import read_swf

N = 20_000


@pytest.fixture(scope="module")
def model() -> Workload:
    return lublin(N, max_procs=256, seed=11)


def test_equal_seeds_give_equal_workloads_and_other_seeds_differ():
    assert lublin(300, 64, seed=5) == lublin(300, 64, seed=5)
    assert lublin(300, 64, seed=5).jobs != lublin(300, 64, seed=6).jobs
    assert lublin(300, 64, rng=random.Random(5)).jobs == lublin(300, 64, seed=5).jobs
    assert poisson(300, seed=2) == poisson(300, seed=2) != poisson(300, seed=3)
    assert uniform(50, seed=1) == uniform(50, seed=1)


def test_generators_leave_the_module_level_random_alone():
    random.seed(123)
    state = random.getstate()
    lublin(100, seed=1)
    poisson(100, seed=1)
    uniform(100, seed=1)
    assert random.getstate() == state


def test_a_shared_rng_continues_its_stream():
    rng = random.Random(9)
    first, second = poisson(20, rng=rng), poisson(20, rng=rng)
    assert first.jobs != second.jobs
    assert first.metadata["seed"] == "rng"
    with pytest.raises(WorkloadError, match=r"rng must be a random\.Random"):
        lublin(5, rng=9)  # type: ignore[arg-type]


def test_the_gamma_cdf_matches_closed_forms_on_both_branches():
    for x in (0.1, 0.9, 3.0, 20.0):  # shape 1: exponential; shape 2: 1 - e^-z (1 + z)
        assert math.isclose(_gamma_cdf(x, 1.0, 2.0), 1 - math.exp(-x / 2), rel_tol=1e-12)
        z = x / 0.5
        assert math.isclose(_gamma_cdf(x, 2.0, 0.5), 1 - math.exp(-z) * (1 + z), rel_tol=1e-10)
    assert _gamma_cdf(0.0, 3.0, 1.0) == 0.0


def test_serial_fraction_is_the_published_one(model):
    serial = sum(j.procs == 1 for j in model) / N
    assert abs(serial - 0.244) < 0.015


def _pow2_expected(params: LublinParams, max_procs: int) -> float:
    """P(size is a power of two | parallel), integrated from the model's definition."""
    uhi = math.log2(max_procs)
    umed = uhi - params.umed_gap

    def mass(a: float, b: float) -> float:  # probability that u falls in [a, b)
        def stage(lo: float, hi: float) -> float:
            return max(0.0, min(b, hi) - max(a, lo)) / (hi - lo)

        return params.uprob * stage(params.ulow, umed) + (1 - params.uprob) * stage(umed, uhi)

    # round(2**u) == 2**k  <=>  2**k - 0.5 <= 2**u < 2**k + 0.5
    by_chance = sum(
        mass(math.log2(2**k - 0.5), math.log2(2**k + 0.5)) for k in range(1, int(uhi) + 1)
    )
    return params.pow2_prob + (1 - params.pow2_prob) * by_chance


def test_power_of_two_fraction_matches_the_model(model):
    parallel = [j.procs for j in model if j.procs > 1]
    pow2 = sum(p & (p - 1) == 0 for p in parallel) / len(parallel)
    expected = _pow2_expected(LublinParams(), 256)
    assert 0.62 < expected < 0.72
    assert abs(pow2 - expected) < 0.02


def test_sizes_stay_within_the_machine_and_the_two_stage_uniform(model):
    sizes = [j.procs for j in model]
    assert max(sizes) == 256 and min(sizes) == 1
    small = lublin(5000, max_procs=24, seed=3)
    assert max(j.procs for j in small) <= 24 and small.max_procs == 24
    assert all(j.procs == 1 for j in lublin(200, max_procs=1, seed=3))
    # log2 of parallel sizes ~ u (rounded or not): the two-stage uniform's mean (umed = 8 - 2.5)
    logs = [math.log2(p) for p in sizes if p > 1]
    mean = (0.86 * (0.8 + 5.5) + 0.14 * (5.5 + 8)) / 2
    assert abs(statistics.mean(logs) - mean) < 0.08


def _mean_log_runtime(params: LublinParams, size: int) -> float:
    p = min(1.0, max(0.0, params.pa * size + params.pb))
    return p * params.a1 * params.b1 + (1 - p) * params.a2 * params.b2


def test_mean_log_runtime_per_size_class_matches_the_hyper_gamma(model):
    params = LublinParams()
    serial = [math.log(j.runtime) for j in model if j.procs == 1]
    assert abs(statistics.mean(serial) - _mean_log_runtime(params, 1)) < 0.15
    large = [math.log(j.runtime) for j in model if j.procs >= 145]  # p = 0: second gamma only
    assert len(large) > 300
    assert abs(statistics.mean(large) - params.a2 * params.b2) < 0.05
    mid = [j for j in model if 16 <= j.procs <= 32]
    expected = statistics.mean(_mean_log_runtime(params, j.procs) for j in mid)
    assert abs(statistics.mean(math.log(j.runtime) for j in mid) - expected) < 0.2
    assert max(j.runtime for j in model) <= math.exp(12)
    assert all(j.walltime == j.runtime >= 1 for j in model)


def test_daily_rates_have_a_night_low_and_a_midday_peak():
    rates = daily_rates()
    assert math.isclose(sum(rates) / 48, 1.0)
    assert 6 <= rates.index(min(rates)) <= 10  # 03:00-05:00
    assert 22 <= rates.index(max(rates)) <= 30  # 11:00-15:00
    assert max(rates) / min(rates) > 5


def test_arrivals_follow_the_daily_cycle(model):
    per_hour = [0] * 24
    for j in model:
        per_hour[j.submit % 86400 // 3600] += 1
    rates = daily_rates()
    hourly = [rates[2 * h] + rates[2 * h + 1] for h in range(24)]
    assert per_hour.index(max(per_hour)) in range(10, 16)
    assert per_hour.index(min(per_hour)) in range(2, 7)
    # the hours' shares follow the rates (Pearson correlation)
    assert statistics.correlation(per_hour, hourly) > 0.95


def test_rush_hour_inter_arrival_median_matches_the_gamma(model):
    # at the peak, one point per 1/max(rate) seconds: median gap ~ exp(median of the gamma)
    p = LublinParams()
    rates = daily_rates()
    peak = rates.index(max(rates)) // 2
    gaps = [b.submit - a.submit for a, b in zip(model.jobs, model.jobs[1:], strict=False)]
    at_peak = [
        g for g, j in zip(gaps, model.jobs, strict=False) if j.submit % 86400 // 3600 == peak
    ]
    shape = p.aarr * p.arar
    median_log = shape * p.barr * (1 - 1 / (9 * shape)) ** 3  # Wilson-Hilferty
    expected = math.exp(median_log) / max(rates)
    assert abs(statistics.median(at_peak) / expected - 1) < 0.25


def test_custom_parameters_change_the_model_and_are_recorded():
    w = lublin(4000, 64, seed=2, params=LublinParams(serial_prob=0.0, pow2_prob=1.0))
    assert all(j.procs > 1 and j.procs & (j.procs - 1) == 0 for j in w)
    assert "serial_prob" in w.metadata["params"]
    with pytest.raises(WorkloadError, match="probabilities must be within"):
        lublin(10, params=LublinParams(uprob=1.5))


def test_lublin_compares_loosely_with_the_archive_output(model):
    path = TRACES / "lublin_256.swf"
    if not path.is_file():
        pytest.skip(f"{path} not present")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ref = read_swf(path)

    def summary(w: Workload) -> dict[str, float]:
        n = len(w)
        parallel = [j.procs for j in w if j.procs > 1]
        gaps = [b.submit - a.submit for a, b in zip(w.jobs, w.jobs[1:], strict=False)]
        hours = [0] * 24
        for j in w:
            hours[j.submit % 86400 // 3600] += 1
        return {
            "serial": sum(j.procs == 1 for j in w) / n,
            "pow2": sum(p & (p - 1) == 0 for p in parallel) / len(parallel),
            "log_runtime": statistics.mean(math.log(j.runtime) for j in w),
            "median_gap": statistics.median(gaps),
            "mean_procs": statistics.mean(j.procs for j in w),
            "peak_hour": hours.index(max(hours)),
            "low_hour": hours.index(min(hours)),
        }

    ours, theirs = summary(model), summary(ref)
    assert abs(ours["serial"] - theirs["serial"]) < 0.03
    assert abs(ours["log_runtime"] - theirs["log_runtime"]) < 0.3
    assert abs(ours["median_gap"] / theirs["median_gap"] - 1) < 0.25
    assert abs(ours["mean_procs"] / theirs["mean_procs"] - 1) < 0.15
    assert abs(ours["peak_hour"] - theirs["peak_hour"]) <= 2
    assert abs(ours["low_hour"] - theirs["low_hour"]) <= 2
    # the archive's file has more powers of two (~0.81) than pow2_prob = 0.576 gives (~0.67)
    assert ours["pow2"] > 0.6 and theirs["pow2"] > 0.6


def test_poisson_rates_ranges_and_overestimates():
    w = poisson(5000, rate=1 / 120, max_procs=8, runtime=(10, 20), overestimate=(1.5, 2.5), seed=7)
    gaps = [b.submit - a.submit for a, b in zip(w.jobs, w.jobs[1:], strict=False)]
    assert abs(statistics.mean(gaps) / 120 - 1) < 0.06
    assert {j.procs for j in w} == set(range(1, 9))
    assert {j.runtime for j in w} == set(range(10, 21))
    factors = [j.walltime / j.runtime for j in w]
    assert min(factors) >= 1.5 - 1e-9 and max(factors) <= 2.5 + 0.1
    assert abs(statistics.mean(factors) - 2.0) < 0.05
    assert (w.name, w.max_procs, w.metadata["seed"]) == ("poisson", 8, "7")


def test_uniform_submits_every_interval():
    w = uniform(5, interval=60, max_procs=4, runtime=(30, 30), overestimate=2.0)
    assert [(j.id, j.submit, j.runtime, j.walltime) for j in w] == [
        (i + 1, 60 * i, 30, 60) for i in range(5)
    ]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: poisson(5, rate=0), "poisson: rate must be > 0"),
        (lambda: poisson(-1), "poisson: n_jobs must be >= 0"),
        (lambda: poisson(5, max_procs=0), "poisson: max_procs must be >= 1"),
        (lambda: poisson(5, runtime=(10, 5)), "poisson: runtime must be (lo, hi) with 1 <= lo"),
        (lambda: uniform(5, overestimate=0.5), "uniform: overestimate must be >= 1"),
        (lambda: uniform(5, interval=-1), "uniform: interval must be >= 0"),
        (lambda: lublin(5, max_procs=0), "lublin: max_procs must be >= 1"),
    ],
)
def test_bad_parameters_are_workload_errors(call, message):
    with pytest.raises(WorkloadError) as info:
        call()
    assert str(info.value).startswith(message)
