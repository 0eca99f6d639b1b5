#!/usr/bin/env python3
"""Holds the IP packets netfilter queues to it (an iptables NFQUEUE rule) and lets each go after a
delay with random jitter, or drops it, so a link delays, reorders and loses real packets and TCP
has to recover: what the kernel's netem qdisc would do, for kernels built without it.

Run inside a node's network namespace, as root:
    packet_impairer.py --queue 0 --delay-ms 50 --jitter-ms 20 --drop-percent 5
then queue the node's traffic to it:
    iptables -A INPUT ! -i lo -j NFQUEUE --queue-num 0 --queue-bypass
    iptables -A OUTPUT ! -o lo -j NFQUEUE --queue-num 0 --queue-bypass
Prints "ready" once bound to the queue. On SIGTERM or SIGINT it lets every held packet go, prints
one line of counts ("queued N dropped N released N reordered N") and exits. If it dies, the rules'
--queue-bypass lets packets pass, so the link never stays cut.

Only Python's standard library: the nfnetlink queue protocol spoken over an AF_NETLINK socket.
"""

import argparse
import errno
import heapq
import random
import select
import signal
import socket
import struct
import sys
import time

NETLINK_NETFILTER = 12
SOL_NETLINK = 270
NETLINK_NO_ENOBUFS = 5
NFNL_SUBSYS_QUEUE = 3
NFQNL_MSG_PACKET = 0
NFQNL_MSG_VERDICT = 1
NFQNL_MSG_CONFIG = 2
NLM_F_REQUEST = 1
NLM_F_ACK = 4
NLMSG_ERROR = 2
NFQA_CFG_CMD = 1
NFQA_CFG_PARAMS = 2
NFQA_CFG_QUEUE_MAXLEN = 3
NFQA_CFG_MASK = 4
NFQA_CFG_FLAGS = 5
NFQA_PACKET_HDR = 1
NFQA_VERDICT_HDR = 2
NFQNL_CFG_CMD_BIND = 1
NFQNL_COPY_META = 1
NFQA_CFG_F_FAIL_OPEN = 1
NF_DROP = 0
NF_ACCEPT = 1
# Packets the kernel holds for this queue at most; past it (fail-open) it lets them pass.
QUEUE_MAXLEN = 20000


def attribute(kind, payload):
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * (-length % 4)


def message(kind, queue, attributes, flags, seq):
    body = struct.pack("!BBH", socket.AF_UNSPEC, 0, queue) + b"".join(attributes)
    header = struct.pack(
        "=IHHII", 16 + len(body), (NFNL_SUBSYS_QUEUE << 8) | kind, flags, seq, 0)
    return header + body


class Queue:
    def __init__(self, number):
        self.number = number
        self.seq = 0
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_NO_ENOBUFS, 1)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE (root)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        self.sock.bind((0, 0))
        self.configure(attribute(NFQA_CFG_CMD, struct.pack("!BBH", NFQNL_CFG_CMD_BIND, 0,
                                                           socket.AF_INET)))
        # Only the packet's id comes up: the verdict is all this program gives.
        self.configure(attribute(NFQA_CFG_PARAMS, struct.pack("!IB", 0, NFQNL_COPY_META)))
        self.configure(attribute(NFQA_CFG_QUEUE_MAXLEN, struct.pack("!I", QUEUE_MAXLEN)))
        self.configure(attribute(NFQA_CFG_FLAGS, struct.pack("!I", NFQA_CFG_F_FAIL_OPEN)),
                       attribute(NFQA_CFG_MASK, struct.pack("!I", NFQA_CFG_F_FAIL_OPEN)))
        self.sock.setblocking(False)

    def configure(self, *attributes):
        self.seq += 1
        self.sock.send(message(NFQNL_MSG_CONFIG, self.number, attributes,
                               NLM_F_REQUEST | NLM_F_ACK, self.seq))
        reply = self.sock.recv(65536)
        kind = struct.unpack_from("=H", reply, 4)[0]
        if kind == NLMSG_ERROR:
            error = struct.unpack_from("=i", reply, 16)[0]
            if error != 0:
                raise OSError(-error, "configuring netfilter queue %d" % self.number)

    def packet_ids(self):
        """The ids of every packet queued since the last call (none if nothing is waiting)."""
        ids = []
        while True:
            try:
                data = self.sock.recv(1 << 20)
            except BlockingIOError:
                return ids
            except OSError as e:
                if e.errno == errno.ENOBUFS:
                    continue
                raise
            offset = 0
            while offset + 16 <= len(data):
                length, kind = struct.unpack_from("=IH", data, offset)
                if length < 16:
                    break
                if kind == (NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET:
                    packet_id = self.packet_id(data, offset + 20, offset + length)
                    if packet_id is not None:
                        ids.append(packet_id)
                offset += (length + 3) & ~3

    @staticmethod
    def packet_id(data, start, end):
        while start + 4 <= end:
            length, kind = struct.unpack_from("=HH", data, start)
            if length < 4:
                return None
            if kind & 0x3FFF == NFQA_PACKET_HDR:
                return struct.unpack_from("!I", data, start + 4)[0]
            start += (length + 3) & ~3
        return None

    def verdict(self, packet_id, verdict):
        payload = attribute(NFQA_VERDICT_HDR, struct.pack("!II", verdict, packet_id))
        while True:
            try:
                self.sock.send(message(NFQNL_MSG_VERDICT, self.number, [payload],
                                       NLM_F_REQUEST, 0))
                return
            except BlockingIOError:
                select.select([], [self.sock], [], 0.01)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queue", type=int, default=0)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--jitter-ms", type=float, default=0.0)
    parser.add_argument("--drop-percent", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    queue = Queue(args.queue)

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    print("ready", flush=True)

    held = []  # (due, arrival, packet id)
    arrival = 0
    counts = {"queued": 0, "dropped": 0, "released": 0, "reordered": 0}
    last_released = -1  # arrival number of the packet released last
    while not stopping:
        now = time.monotonic()
        timeout = max(0.0, held[0][0] - now) if held else 0.2
        try:
            select.select([queue.sock], [], [], min(timeout, 0.2))
        except InterruptedError:
            pass
        for packet_id in queue.packet_ids():
            counts["queued"] += 1
            if rng.random() * 100 < args.drop_percent:
                counts["dropped"] += 1
                queue.verdict(packet_id, NF_DROP)
                continue
            due = time.monotonic() + (args.delay_ms + rng.uniform(0, args.jitter_ms)) / 1000
            arrival += 1
            heapq.heappush(held, (due, arrival, packet_id))
        now = time.monotonic()
        while held and held[0][0] <= now:
            _, number, packet_id = heapq.heappop(held)
            if number < last_released:
                counts["reordered"] += 1
            last_released = max(last_released, number)
            counts["released"] += 1
            queue.verdict(packet_id, NF_ACCEPT)
    for _, _, packet_id in sorted(held):
        counts["released"] += 1
        queue.verdict(packet_id, NF_ACCEPT)
    print(" ".join("%s %d" % item for item in counts.items()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
