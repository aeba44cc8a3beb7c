"""`mcastlab reproduce`: the five papers' headline claims, each with the paper's figure
beside the testbed's and a verdict (testbed.reproduce.verdict).

claims (the Claim record), pure (claims computed without a network), the measured claims
paper by paper (nupairoj, coll, tseng; measured: Siebert2006's and Chen2000's), each on an
emulated network at the calibrated operating point, all_claims (all of them, in order, and
the choice of which to run), scale_tier (--scale: the claims about growth with the number of
nodes again on 32 and 64 hosts), networks (the networks the measured claims share), run
(running them and writing the results), report (reproduce.json, reproduce.md,
report.html)."""
