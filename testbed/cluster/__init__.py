"""The testbed over several machines (issue 22), on Mininet Cluster Edition's remote nodes.
What a cluster is (servers, placement, tunnel kind, controller address) is
testbed.specs.cluster, which the floors below this one read too.

    switch_placement
               which server every switch and host runs on, and the links that cross
    server     a server as the testbed talks to it: run a command, put a file (here or by ssh)
    spread     one run's network on its servers: runners, addresses, holds, Mininet params
    nodes      Cluster Edition's remote hosts, switches and links, without sudo, with marks
    agent      the testbed on another server for a run: hold (lock, record, teardown), kill
    hold       this server's end of an agent's hold
    rig        a two-server cluster on one machine (namespaces, own sshd and OVS) for tests
    facts      what a server says of itself (clock, checkout, versions, capabilities)
    doctor     mcastlab doctor --servers: can these servers run one network together
"""
