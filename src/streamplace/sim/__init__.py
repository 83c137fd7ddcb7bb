"""A time simulator of a placed topology under a time-varying load, driven by an elastic controller."""

from streamplace.sim.engine import SimConfig, SimResult, simulate

__all__ = ["SimConfig", "SimResult", "simulate"]
