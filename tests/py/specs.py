"""specs.py: the spec files (spec/*.spec) as the tests' Python sees them:
lines with the %family templates expanded, each function's class words,
return role and arguments with their roles."""
import os
import re

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def spec_lines():
    """The spec lines with the %family templates expanded (docs/spec-format.md)."""
    for name in sorted(os.listdir(os.path.join(ROOT, "spec"))):
        fams = {}
        for line in open(os.path.join(ROOT, "spec", name)):
            line = line.split("#")[0].strip()
            if line.startswith("%family "):
                fam, members = line[8:].split(" ", 1)
                fams[fam] = [m.split(":", 1) for m in members.split(";")]
                continue
            if "|" not in line:
                continue
            for fam, members in fams.items():
                if "${%s" % fam in line:
                    for mname, ctype in members:
                        yield line.replace("${%s.c}" % fam, ctype.strip()).replace("${%s}" % fam, mname.strip())
                    break
            else:
                yield line


def spec_functions():
    """{name: (class words, return role, [(arg name, role)])}"""
    out = {}
    for line in spec_lines():
        head, proto = line.split("|", 1)
        words = head.split()
        ret = next((w[4:] for w in words if w.startswith("ret:")), "")
        m = re.search(r"([A-Za-z_][A-Za-z_0-9]*)\s*\((.*)\)\s*$", proto.strip())
        args = []
        for a in m.group(2).split(","):
            a = a.replace("...", "").strip()
            if ":" not in a:
                continue
            decl, role = a.rsplit(":", 1)
            name = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", decl)[-1]
            args.append((name, role.split("(")[0]))
        out[m.group(1)] = (words[1].split("+"), ret, args)
    return out


def spec_classes():
    """{name: class words}"""
    return {name: f[0] for name, f in spec_functions().items()}
