"""How many datagrams a multicast receiver's socket holds while its rank does not read: rank
0 sends 46 (64 KiB) and then 400 datagrams of the channel's fragment to the group, the other
ranks read nothing until all are sent; each then reports its queue's bytes (/proc/net/udp's
rx_queue: every datagram at its truesize), the datagrams it kept and those the kernel
dropped, with the 32 MiB buffer nack asks for and with the kernel's default
(collectives.ipmc.sockbuf; docs/ip-multicast.md#receive-buffers).

    sudo .venv/bin/mcastlab mpirun --topo star:hosts=3,bw=100 -- $PWD/scripts/rcvbuf_truesize.py
"""
import json
import time

from mpi4py import MPI

from collectives.ipmc import datagram as dg
from collectives.ipmc import sockbuf
from collectives.ipmc.channel import channel_for

comm = MPI.COMM_WORLD
ch = channel_for(comm)
sock = ch.recv_sock
assert sock is not None


def drain() -> int:
    n = 0
    while True:
        try:
            sock.recv(65536)
        except BlockingIOError:
            return n
        n += 1


out = {}
for label, asked in (("32 MiB", sockbuf.LARGE), ("kernel default", sockbuf.KERNEL)):
    ch.receive_buffer(asked)
    for count in (46, 400):
        drain()
        comm.Barrier()
        _, drops0 = sockbuf.queue_and_drops(sock) or (0, 0)
        if ch.rank == 0:
            for i in range(count):
                ch.send(dg.DATA, i, count, bytes(ch.fragment))
                time.sleep(0.0005)  # no switch queue overflows: only the socket's buffer
        comm.Barrier()
        time.sleep(0.3)  # the last datagrams' way through the switch
        queued, drops = sockbuf.queue_and_drops(sock) or (0, 0)
        kept = drain()
        every = comm.gather({"queued_bytes": queued, "kept": kept, "dropped": drops - drops0,
                             "truesize": queued / kept if kept else None}, root=0)
        if ch.rank == 0:
            out[f"{label}, {count} sent"] = {"got": ch.receive_buffer_state()["got"],
                                             "fragment": ch.fragment, "receivers": every[1:]}
if ch.rank == 0:
    print(json.dumps(out, indent=1))
