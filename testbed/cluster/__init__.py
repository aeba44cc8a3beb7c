"""The testbed over several machines (issue 22, on Mininet Cluster Edition). Work in
progress: only these parts exist so far, and nothing builds a network across servers yet.

    spec       what a cluster is: servers, placement, tunnel kind, controller address
    placement  which server every switch and host runs on, and the links that cross
    server     a server as the testbed talks to it: run a command, put a file (here or by ssh)
    rig        a two-server cluster on one machine (namespaces, own sshd and OVS) for tests
    facts      what a server says of itself (clock, checkout, versions, capabilities)
    doctor     mcastlab doctor --servers: can these servers run one network together
"""
