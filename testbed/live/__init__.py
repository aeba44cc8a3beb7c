"""The live view (`mcastlab net --web`): the network as it runs, in a browser on this machine.

Division of labour, so that the server never holds root and never reads more than the run
publishes:

- ``snapshot.py`` (pure): what the page shows, as one JSON-able dict built from the
  topology, the controller's groups and failed nodes, and the switches' port counters.
- ``publish.py``: a thread of the run's root process that reads the controller a few times a
  second and writes the snapshot atomically into the run's ``live/`` folder (safepath).
- ``svg.py`` (pure): a snapshot drawn as SVG (layered layout, groups' trees and members,
  failed nodes, each link's load both ways).
- ``server.py``: the web server (aiohttp), its own process started as an unprivileged user,
  bound to 127.0.0.1, every request checked against a random token; it serves its own page
  files (held in memory) and the snapshot read through a folder descriptor it was handed.
- ``view.py``: starts and stops the publisher and the server for a network that is up
  (``LiveView``), and says which user the server runs as.
"""
