"""Compiles a seccomp profile in Docker's JSON format into a classic BPF program, with libseccomp.

Usage: compile-profile.py <profile.json> <out.bpf> <capability>...

Read as Docker and runc read the profile (moby/profiles/seccomp, runc's libcontainer/seccomp):
a rule applies when every capability it `includes` is held, none it `excludes` is, and the
architecture matches this machine's; a rule whose action is the default's is left out, as are
calls this libseccomp has no number for (newer than it: they stay refused, stricter than Docker). The capabilities are the ones Docker grants a container by
default, so what the profile gives only to CAP_SYS_ADMIN and the like (mount, unshare, setns,
clone with namespace flags, keyctl...) stays refused.
"""

import errno
import json
import os
import platform
import sys

import seccomp

# Docker's architecture names (the profile's `arches`) for this machine's, and libseccomp's.
docker_arch = {"x86_64": "amd64", "aarch64": "arm64"}[platform.machine()]
scmp_arch = {
    "SCMP_ARCH_X86_64": seccomp.Arch.X86_64,
    "SCMP_ARCH_X86": seccomp.Arch.X86,
    "SCMP_ARCH_X32": seccomp.Arch.X32,
    "SCMP_ARCH_AARCH64": seccomp.Arch.AARCH64,
    "SCMP_ARCH_ARM": seccomp.Arch.ARM,
}
operators = {
    "SCMP_CMP_NE": seccomp.NE,
    "SCMP_CMP_LT": seccomp.LT,
    "SCMP_CMP_LE": seccomp.LE,
    "SCMP_CMP_EQ": seccomp.EQ,
    "SCMP_CMP_GE": seccomp.GE,
    "SCMP_CMP_GT": seccomp.GT,
    "SCMP_CMP_MASKED_EQ": seccomp.MASKED_EQ,
}


def action(name, errno_ret, default_errno):
    if name == "SCMP_ACT_ALLOW":
        return seccomp.ALLOW
    if name == "SCMP_ACT_ERRNO":
        return seccomp.ERRNO(errno_ret if errno_ret is not None else default_errno)
    raise SystemExit(f"unsupported action {name}")


def applies(rule, capabilities, kernel):
    includes = rule.get("includes") or {}
    excludes = rule.get("excludes") or {}
    if includes.get("arches") and docker_arch not in includes["arches"]:
        return False
    if docker_arch in (excludes.get("arches") or []):
        return False
    if any(cap not in capabilities for cap in includes.get("caps") or []):
        return False
    if any(cap in capabilities for cap in excludes.get("caps") or []):
        return False
    minimum = includes.get("minKernel")
    return minimum is None or kernel >= tuple(int(part) for part in minimum.split("."))


def known(name):
    """Whether this libseccomp knows the call's number here (a newer call than it stays refused)."""
    try:
        return seccomp.resolve_syscall(seccomp.Arch.NATIVE, name) >= 0
    except ValueError:
        return False


def condition(arg):
    op = operators[arg["op"]]
    if op == seccomp.MASKED_EQ:  # value is the mask, valueTwo what the masked argument must equal
        return seccomp.Arg(arg["index"], op, arg["value"], arg.get("valueTwo", 0))
    return seccomp.Arg(arg["index"], op, arg["value"])


def compile_profile(profile, capabilities):
    default_errno = profile.get("defaultErrnoRet", errno.EPERM)
    default = action(profile["defaultAction"], default_errno, default_errno)
    kernel = tuple(int(part) for part in os.uname().release.split("-")[0].split(".")[:2])
    bpf = seccomp.SyscallFilter(defaction=default)
    native = {"amd64": "SCMP_ARCH_X86_64", "arm64": "SCMP_ARCH_AARCH64"}[docker_arch]
    for entry in profile.get("archMap") or []:
        if entry["architecture"] == native:
            for sub in entry.get("subArchitectures") or []:
                bpf.add_arch(scmp_arch[sub])
    for rule in profile["syscalls"]:
        if not applies(rule, capabilities, kernel):
            continue
        act = action(rule["action"], rule.get("errnoRet"), default_errno)
        if act == default:
            continue
        args = rule.get("args") or []
        # As runc: conditions on distinct arguments must all hold; several on one argument are
        # alternatives, each a rule of its own.
        counts = {}
        for arg in args:
            counts[arg["index"]] = counts.get(arg["index"], 0) + 1
        for name in rule["names"]:
            if not known(name):
                continue
            together = [condition(arg) for arg in args if counts[arg["index"]] == 1]
            for arg in args:
                if counts[arg["index"]] > 1:
                    bpf.add_rule(act, name, condition(arg))
            if together or not args:
                bpf.add_rule(act, name, *together)
    return bpf


def main():
    source, target, *capabilities = sys.argv[1:]
    with open(source) as file:
        profile = json.load(file)
    bpf = compile_profile(profile, set(capabilities))
    with open(target, "wb") as out:
        bpf.export_bpf(out)


main()
