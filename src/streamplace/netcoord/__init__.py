"""Network coordinates: latency estimates for every pair of nodes from a few noisy measurements.

``spring`` is Ecker et al.'s (2025) spring relaxation (Algorithms 1–2) in a 3-D latency
space; ``vivaldi`` is Dabek et al.'s Vivaldi, the classic alternative (used
by ODRP's Distributed Storm). ``estimate`` turns a measured RTT matrix with
missing pairs into coordinates and a full latency matrix with either.
"""

from streamplace.netcoord.estimate import Coordinates, estimate
from streamplace.netcoord.spring import SpringParams
from streamplace.netcoord.vivaldi import VivaldiParams

__all__ = ["Coordinates", "SpringParams", "VivaldiParams", "estimate"]
