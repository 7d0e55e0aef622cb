# The accessibility trees of the desktop's own apps (terminal, editor, file manager: GTK 3, over
# AT-SPI) and actions on their nodes, for native-apps.ts. Runs inside the sandbox with DISPLAY
# set: libatspi finds the accessibility bus through the display, where at-spi-bus-launcher
# published it. Prints one JSON object; what the facts mean is domain/sandboxes/atspi-nodes.ts.
#
#   tree <include_hidden 0|1> <name>...  the first app whose name or program is one of <name>
#                                        (one with an active window first): {apps, app, tree}
#   node <pid> <id>                      the node with that object id in that app: {apps, node}
#   act <pid> <id> <op> [<arg>]          does <op> on it: {apps, node, done}; <op> is
#                                        `action <name>`, `focus`, `set-text <text>`,
#                                        `set-value <number>`
#
# A node is {id, role, name, description, states, interfaces, actions, text?, value?, children,
# more?}: `id` is the number ending the object's D-Bus path (0 for the app itself; null when
# the path ends otherwise), `role` and `states` are AT-SPI's names, `text` a text field's or a
# terminal's contents, `value` a slider's {current, minimum, maximum, step}; `more` says children
# were left unread (the node limit). Hidden subtrees (not `showing`) are read only when asked.
import json
import sys
import warnings

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

warnings.filterwarnings("ignore")

MAX_NODES = 5000
MAX_DEPTH = 400
TEXT_CHARS = 100_000


def object_id(acc):
    tail = acc.path.rsplit("/", 1)[-1]
    if tail == "root":
        return 0
    return int(tail) if tail.isdigit() else None


def states_of(acc):
    return [Atspi.StateType(s).value_nick for s in acc.get_state_set().get_states()]


def text_of(acc, role):
    count = Atspi.Text.get_character_count(acc)
    if count <= TEXT_CHARS:
        return Atspi.Text.get_text(acc, 0, count)
    # A terminal's latest lines matter most; a document's first.
    start = count - TEXT_CHARS if role == "terminal" else 0
    return Atspi.Text.get_text(acc, start, start + TEXT_CHARS)


def describe(acc):
    role = acc.get_role_name()
    states = states_of(acc)
    interfaces = list(acc.get_interfaces())
    actions = []
    if "Action" in interfaces:
        actions = [Atspi.Action.get_action_name(acc, i) for i in range(Atspi.Action.get_n_actions(acc))]
    node = {
        "id": object_id(acc),
        "role": role,
        "name": (acc.get_name() or "").strip(),
        "description": (acc.get_description() or "").strip(),
        "states": states,
        "interfaces": interfaces,
        "actions": actions,
    }
    if "Text" in interfaces and (role == "terminal" or "editable" in states):
        node["text"] = text_of(acc, role)
    if "Value" in interfaces:
        node["value"] = {
            "current": Atspi.Value.get_current_value(acc),
            "minimum": Atspi.Value.get_minimum_value(acc),
            "maximum": Atspi.Value.get_maximum_value(acc),
            "step": Atspi.Value.get_minimum_increment(acc),
        }
    return node


def children_of(acc):
    out = []
    for index in range(acc.get_child_count()):
        try:
            child = acc.get_child_at_index(index)
        except GLib.Error:
            continue
        if child is not None:
            out.append(child)
    return out


def walk(acc, depth, include_hidden, budget):
    node = describe(acc)
    node["children"] = []
    shown = depth == 0 or "showing" in node["states"]
    if depth >= MAX_DEPTH or not (shown or include_hidden):
        return node
    for child in children_of(acc):
        if budget[0] <= 0:
            node["more"] = True
            break
        budget[0] -= 1
        try:
            node["children"].append(walk(child, depth + 1, include_hidden, budget))
        except GLib.Error:
            continue  # gone while it was read
    return node


def program_of(pid):
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return ""


def running_apps():
    desktop = Atspi.get_desktop(0)
    apps = []
    for acc in children_of(desktop):
        try:
            pid = acc.get_process_id()
            active = any("active" in states_of(window) for window in children_of(acc))
            apps.append({"name": acc.get_name() or "", "pid": pid, "program": program_of(pid), "active": active, "acc": acc})
        except GLib.Error:
            continue  # an app that quit meanwhile
    return apps


def public(app):
    return {key: value for key, value in app.items() if key != "acc"}


def find(acc, wanted, depth=0):
    if object_id(acc) == wanted:
        return acc
    if depth >= MAX_DEPTH:
        return None
    for child in children_of(acc):
        try:
            found = find(child, wanted, depth + 1)
        except GLib.Error:
            continue
        if found is not None:
            return found
    return None


def node_in(apps, pid, wanted):
    app = next((app for app in apps if app["pid"] == pid), None)
    return None if app is None else find(app["acc"], wanted)


def act(acc, op, arg):
    if op == "action":
        names = [Atspi.Action.get_action_name(acc, i) for i in range(Atspi.Action.get_n_actions(acc))]
        return arg in names and Atspi.Action.do_action(acc, names.index(arg))
    if op == "focus":
        return Atspi.Component.grab_focus(acc)
    if op == "set-text":
        return Atspi.EditableText.set_text_contents(acc, arg)
    if op == "set-value":
        return Atspi.Value.set_current_value(acc, float(arg))
    raise ValueError(f"unknown operation {op}")


def main(argv):
    Atspi.set_timeout(3000, 10000)
    command = argv[0]
    apps = running_apps()
    out = {"apps": [public(app) for app in apps]}
    if command == "tree":
        include_hidden = argv[1] == "1"
        names = {name.lower() for name in argv[2:]}
        matching = [app for app in apps if app["name"].lower() in names or app["program"].lower() in names]
        matching.sort(key=lambda app: not app["active"])
        out["app"] = public(matching[0]) if matching else None
        out["tree"] = walk(matching[0]["acc"], 0, include_hidden, [MAX_NODES]) if matching else None
    elif command in ("node", "act"):
        acc = node_in(apps, int(argv[1]), int(argv[2]))
        out["node"] = None if acc is None else describe(acc)
        if command == "act" and acc is not None:
            out["done"] = bool(act(acc, argv[3], argv[4] if len(argv) > 4 else ""))
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except GLib.Error as error:
        print(f"the accessibility bus refused: {error.message}", file=sys.stderr)
        sys.exit(3)
