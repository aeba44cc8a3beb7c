"""The mcastlab OpenFlow 1.3 controller: an app on the Ryu API, run on os-ken (or Ryu).

It runs as its own process (``python -m controller``), learns the network from the topology
file the testbed writes, and listens for switches on 127.0.0.1 only.
"""

import warnings

# os-ken runs on eventlet, which warns on import that it is in maintenance mode.
warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
