"""What an experiment injects into a running network: background traffic and hot spots
(`traffic_model`, pure and after Nupairoj 1998 ch. 6; `traffic`, its generators in the
hosts) and faults at given times (`faults`)."""
