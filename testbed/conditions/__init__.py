"""What an experiment injects into a running network: background traffic and hot spots
(`traffic`: the generators in the hosts, as testbed.specs.traffic_model describes them)
and faults at given times (`faults`)."""
