"""The Dockerfile's final stage laid out in a chroot, with no container engine.

`ImageRoot` reads deploy/Dockerfile's last stage and builds it the way the engine would,
from its own lines: ARG defaults and ENV are the environment, each RUN runs with /bin/sh -c
inside the root, each COPY copies (`--from=build` takes the binary given, built with the
Dockerfile's own cargo line), USER names the user processes run as, WORKDIR where they start.
The root is a tmpfs holding a copy of the host's /etc and its own /home, /root, /tmp, /var;
the host's /usr (a Debian 12 userland, as debian:bookworm-slim is) is bind-mounted read-only,
so a RUN can change nothing outside the root.

It must run as root inside private mount, PID and network namespaces (scripts/test-deploy.sh
starts deploy_check.py under `unshare --mount --pid --net --fork`): mounts stay in them, the
processes started see only each other in /proc (so `mqshutdown` finds only them), and ports
9876 and 8080 are free on the namespace's own loopback.
"""

import fcntl
import json
import os
import re
import shlex
import shutil
import socket
import struct
import subprocess
import tempfile
from pathlib import Path

# Docker's PATH when the image sets none.
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def loopback_up():
    """Brings up `lo` in a new network namespace (it starts down)."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(s, siocgifflags, request))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sH14s", b"lo", flags | iff_up, b""))


def expand(text, variables):
    """`$NAME` and `${NAME}` as the Dockerfile expands them in ENV, COPY, USER and WORKDIR."""
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: variables.get(m.group(1) or m.group(2), ""), text)


def mount(*args):
    subprocess.run(["mount", *args], check=True)


class ImageRoot:
    def __init__(self, instructions, repo, binary):
        """`instructions`: (INSTRUCTION, argument) of the final stage, in order."""
        if os.geteuid() != 0:
            raise SystemExit("the image check lays out a chroot: run it as root (as CI does)")
        self.root = Path(tempfile.mkdtemp(prefix="nameserver-image-"))
        mount("-t", "tmpfs", "-o", "mode=755", "tmpfs", str(self.root))
        for name in ("usr", "proc", "dev", "tmp", "home", "root", "var/tmp", "run"):
            (self.root / name).mkdir(parents=True, exist_ok=True)
        os.chmod(self.root / "tmp", 0o1777)
        os.chmod(self.root / "root", 0o700)
        mount("--bind", "/usr", str(self.root / "usr"))
        mount("-o", "remount,ro,bind", str(self.root / "usr"))
        for name in ("bin", "sbin", "lib", "lib64"):
            if os.path.islink(f"/{name}"):
                os.symlink(os.readlink(f"/{name}"), self.root / name)
        shutil.copytree("/etc", self.root / "etc", symlinks=True)
        mount("--rbind", "/dev", str(self.root / "dev"))
        mount("-t", "proc", "proc", str(self.root / "proc"))
        loopback_up()

        self.args, self.env = {}, {}
        self.user, self.workdir = "root", "/"
        self.entrypoint, self.cmd, self.volumes, self.expose = [], [], [], []
        for word, rest in instructions:
            variables = {**self.args, **self.env}
            if word == "ARG":
                name, _, default = rest.partition("=")
                self.args[name] = default
            elif word == "ENV":
                for item in shlex.split(rest):
                    key, _, value = item.partition("=")
                    self.env[key] = expand(value, variables)
            elif word == "RUN":
                self.run_as_root(rest, variables)
            elif word == "COPY":
                self.copy(rest, variables, repo, binary)
            elif word == "USER":
                self.user = expand(rest, variables)
            elif word == "WORKDIR":
                self.workdir = expand(rest, variables)
                (self.root / self.workdir.lstrip("/")).mkdir(parents=True, exist_ok=True)
            elif word in ("ENTRYPOINT", "CMD"):
                setattr(self, word.lower(), json.loads(rest))
            elif word == "VOLUME":
                self.volumes = json.loads(rest) if rest.startswith("[") else rest.split()
            elif word == "EXPOSE":
                self.expose = [int(p) for p in rest.split()]

    def path(self, inside):
        """The host path of a path inside the image."""
        return self.root / inside.lstrip("/")

    def run_as_root(self, line, variables):
        env = {"PATH": DEFAULT_PATH, **variables}
        subprocess.run(["chroot", str(self.root), "/bin/sh", "-c", line], env=env, check=True)

    def copy(self, rest, variables, repo, binary):
        words = shlex.split(rest)
        options = [w for w in words if w.startswith("--")]
        source, target = [w for w in words if not w.startswith("--")]
        target = expand(target, variables)
        if any(o.startswith("--from=") for o in options):
            if not source.endswith("/nameserver"):
                raise SystemExit(f"COPY {rest}: only the built binary is known here")
            source_path = Path(binary)
        else:
            source_path = repo / source
        destination = self.path(target)
        if source_path.is_dir():
            shutil.copytree(source_path, destination, dirs_exist_ok=True)
        else:
            if target.endswith("/"):
                destination = destination / source_path.name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source_path, destination)

    def ids(self, user=None):
        """(uid, gid, home) of USER (name or uid[:gid]) from the image's own /etc/passwd."""
        user = user or self.user
        name, _, group = user.partition(":")
        entries = [line.split(":") for line in self.path("/etc/passwd").read_text().splitlines() if line]
        for entry in entries:
            if name in (entry[0], entry[2]):
                return int(entry[2]), int(group or entry[3]), entry[5]
        if name.isdigit():
            return int(name), int(group or name), "/"
        raise SystemExit(f"USER {user}: not in the image's /etc/passwd")

    def spawn(self, argv, user=None, env=None, workdir=None, **popen):
        """Starts argv inside the image as a container engine would: as USER (or `user`), in
        WORKDIR (or `workdir`), with the image's ENV, PATH and the user's HOME, plus `env`."""
        uid, gid, home = self.ids(user)
        full_env = {"PATH": DEFAULT_PATH, "HOSTNAME": "nameserver-0", "HOME": home, **self.env, **(env or {})}
        root, start = str(self.root), workdir or self.workdir

        def enter():
            os.chroot(root)
            os.chdir(start)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)

        return subprocess.Popen(argv, env=full_env, preexec_fn=enter, **popen)

    def close(self):
        subprocess.run(["umount", "--recursive", "--lazy", str(self.root)], check=False)
        shutil.rmtree(self.root, ignore_errors=True)
