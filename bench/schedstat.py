"""bench/schedstat.py - a backend's CPU time, for the bench scripts written in Python.

cpu_ms(pid): the CPU time (ms) the process pid has run, from /proc/<pid>/schedstat: the figure
that holds on a machine shared with other work, where wall times vary with the load.
"""


def cpu_ms(pid):
    with open('/proc/%d/schedstat' % pid) as f:
        return int(f.read().split()[0]) / 1e6
