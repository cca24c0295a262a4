"""Throwaway PostgreSQL clusters on this machine, for test/integration/shards.py,
test/integration/maintain_crash.py and test/bench/bench_shards.py.

Every cluster lives under one directory made with mktemp, listens on a unix socket in
that directory only (listen_addresses is empty, so nothing is reachable from outside
and no TCP port can clash), trusts local connections, and is stopped and removed when
the Fleet is closed, whatever happened (also on SIGTERM, SIGINT and SIGHUP).  Run as
root, initdb and pg_ctl run as the postgres user and the directory is given to it.
The extension must already be installed into the server (make install).
"""
import atexit
import os
import pwd
import random
import shutil
import signal
import subprocess
import sys
import tempfile

BIN = os.path.join(subprocess.run([os.environ.get("PG_CONFIG", "/usr/lib/postgresql/15/bin/pg_config"),
                                   "--bindir"], capture_output=True, text=True, check=True).stdout.strip())


def clean_env(extra=None):
    """The environment without the caller's PG* settings (pg_virtualenv's, a user's PGTZ)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env.update(extra or {})
    return env


class SqlError(Exception):
    pass


class Cluster:
    def __init__(self, fleet, name, port, settings):
        self.fleet, self.name, self.port = fleet, name, port
        self.data = os.path.join(fleet.root, name)
        self.settings = settings

    def start(self):
        opts = [f"-c port={self.port}", "-c listen_addresses=''",
                f"-c unix_socket_directories='{self.fleet.root}'"]
        opts += [f"-c {k}='{v}'" for k, v in self.settings.items()]
        self.fleet.as_owner([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-w", "-s",
                             "-l", os.path.join(self.fleet.root, self.name + ".log"),
                             "-o", " ".join(opts), "start"])

    def stop(self):
        subprocess.run(self.fleet.owner_cmd([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-s",
                                             "-m", "immediate", "stop"]),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def crash(self):
        """Stops the server as a crash would (no shutdown checkpoint: start() recovers from
        the WAL); unlike stop(), fails loudly."""
        self.fleet.as_owner([os.path.join(BIN, "pg_ctl"), "-D", self.data, "-s", "-m", "immediate",
                             "-w", "stop"])

    def conninfo(self, db="postgres"):
        return f"host={self.fleet.root} port={self.port} dbname={db} user=postgres"

    def env(self, db="postgres"):
        """An environment for a client run by hand (psql -f ...) that connects to db here."""
        return clean_env({"PGHOST": self.fleet.root, "PGPORT": str(self.port), "PGUSER": "postgres",
                          "PGDATABASE": db})

    def psql(self, sql, db="postgres", check=True, env=None, timeout=None):
        """Runs sql (a script) in one session; returns stdout (unaligned, tuples only)."""
        r = subprocess.run([os.path.join(BIN, "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                            "-d", self.conninfo(db)], input=sql, capture_output=True, text=True,
                           env=clean_env(env), timeout=timeout)
        if r.returncode != 0:
            if check:
                raise SqlError(f"{self.name}: {r.stderr.strip()[-3000:]}")
            return r.stdout.strip(), r.stderr.strip()
        return r.stdout.strip() if check else (r.stdout.strip(), r.stderr.strip())


class Fleet:
    """A set of clusters made from one initdb, removed by close()."""

    def __init__(self, label):
        self.root = tempfile.mkdtemp(prefix=f"segpipe-{label}-")
        self.clusters = []
        self.owner = None
        if os.geteuid() == 0:
            self.owner = pwd.getpwnam("postgres")
            os.chown(self.root, self.owner.pw_uid, self.owner.pw_gid)
        # the sockets are in our own directory, so any port is free there; a random
        # base only keeps the servers' System V keys (derived from the port) apart
        self.base_port = random.randrange(20000, 60000, 100)
        atexit.register(self.close)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._signalled)

    def _signalled(self, signum, frame):
        self.close()
        sys.exit(128 + signum)

    def owner_cmd(self, cmd):
        return ["runuser", "-u", "postgres", "--"] + cmd if self.owner else cmd

    def as_owner(self, cmd):
        r = subprocess.run(self.owner_cmd(cmd), capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {r.stdout}{r.stderr}")

    def add(self, name, settings=None, encoding="UTF8"):
        """A new cluster (a copy of one initdb per encoding), started.  Its locale is
        C.UTF-8 (C for an encoding other than UTF8), whatever the caller's."""
        template = os.path.join(self.root, f"template-{encoding}")
        if not os.path.isdir(template):
            self.as_owner([os.path.join(BIN, "initdb"), "-D", template, "-A", "trust", "-U", "postgres",
                           "-E", encoding, "--locale=" + ("C.UTF-8" if encoding == "UTF8" else "C"),
                           "--no-sync", "--no-instructions"])
        data = os.path.join(self.root, name)
        self.as_owner(["cp", "-a", template, data])
        base = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
                "shared_buffers": "32MB", "max_connections": "40", "jit": "off",
                "max_parallel_workers_per_gather": "0"}
        base.update(settings or {})
        c = Cluster(self, name, self.base_port + len(self.clusters), base)
        self.clusters.append(c)
        c.start()
        return c

    def close(self):
        for c in self.clusters:
            c.stop()
        self.clusters = []
        if self.root and os.path.isdir(self.root):
            shutil.rmtree(self.root, ignore_errors=True)
        self.root = None
