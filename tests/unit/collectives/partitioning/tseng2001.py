"""Tseng2001's numbers, copied here (never read from the notes): a 16x16 torus, dilation h = 2
or 4 (Fig. 1: "four dilated-4 subnetworks, each as an undirected 4x4 torus, in a 16x16
torus"), T_s = 30 or 300 us, T_c = 1 us per flit, |M_i| = 32 to 1024 flits, as many sources as
destinations per set (16 to 240; Figs. 2-4 use 80), hot-spot factor p = 25, 50, 80, 100 %."""

from __future__ import annotations

from collectives.partitioning.grid import Torus

SIDE, T_S, T_S_SMALL, T_C = 16, 300.0, 30.0, 1.0
SMALL, LARGE = 32, 1024  # flits
SOURCES = 80  # = |D_i|, Figs. 2(a), 3(a), 4(a)
T16 = Torus(SIDE, SIDE)
