#!/usr/bin/python3
"""A StatusNotifierItem watcher for the tray end-to-end test, and a client of the items it sees.

    sni.py watch DIR            owns org.kde.StatusNotifierWatcher on the session bus; writes the
                                bus address to DIR/bus, then one JSON line per registered item to
                                DIR/items ({"service", "path", "pid"}); runs until the bus ends.
    sni.py layout SERVICE PATH  prints the item's menu as JSON: [{"id", "label", "enabled"}]
    sni.py click SERVICE PATH ID [--may-end]  sends the menu item a "clicked" event (what a tray
                                host does); with --may-end the app ending before it answers is fine
    sni.py activate SERVICE PATH  a left click on the icon (StatusNotifierItem.Activate)
    sni.py props SERVICE PATH   prints the item's Title, ToolTip and icons (size, digest) as JSON

Clients use DBUS_SESSION_BUS_ADDRESS. Debian's python3-dbus and python3-gi.
"""
import hashlib
import json
import os
import sys

import dbus
import dbus.service

WATCHER = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"


class Watcher(dbus.service.Object):
    def __init__(self, bus, out_dir):
        super().__init__(bus, "/StatusNotifierWatcher")
        self.bus = bus
        self.out_dir = out_dir
        self.items = []

    @dbus.service.method(WATCHER, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        # An item names either its bus name or its object path (then the sender is the name).
        if service.startswith("/"):
            name, path = sender, service
        else:
            name, path = service, "/StatusNotifierItem"
        bus_obj = self.bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus")
        pid = int(bus_obj.GetConnectionUnixProcessID(sender, dbus_interface="org.freedesktop.DBus"))
        self.items.append(f"{name}{path}")
        with open(os.path.join(self.out_dir, "items"), "a") as f:
            f.write(json.dumps({"service": str(name), "path": str(path), "pid": pid}) + "\n")
        self.StatusNotifierItemRegistered(f"{name}{path}")

    @dbus.service.method(WATCHER, in_signature="s", out_signature="")
    def RegisterStatusNotifierHost(self, service):
        pass

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemRegistered(self, service):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        return self.GetAll(interface)[prop]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {
            "RegisteredStatusNotifierItems": dbus.Array(self.items, signature="s"),
            "IsStatusNotifierHostRegistered": dbus.Boolean(True),
            "ProtocolVersion": dbus.Int32(0),
        }


def watch(out_dir):
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib

    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    watcher = Watcher(bus, out_dir)
    name = dbus.service.BusName(WATCHER, bus)
    # Written last: once it exists, the watcher answers.
    with open(os.path.join(out_dir, "bus.tmp"), "w") as f:
        f.write(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    os.rename(os.path.join(out_dir, "bus.tmp"), os.path.join(out_dir, "bus"))
    GLib.MainLoop().run()
    del watcher, name


def item(service, path):
    return dbus.SessionBus().get_object(service, path)


def menu(service, path):
    menu_path = item(service, path).Get(ITEM, "Menu", dbus_interface=dbus.PROPERTIES_IFACE)
    return dbus.Interface(dbus.SessionBus().get_object(service, menu_path), MENU)


def flatten(node, out):
    item_id, props, children = node
    if item_id != 0 and props.get("type", "standard") != "separator":
        out.append({
            "id": int(item_id),
            "label": str(props.get("label", "")),
            "enabled": bool(props.get("enabled", True)),
        })
    for child in children:
        flatten(child, out)
    return out


def main(argv):
    cmd = argv[1]
    if cmd == "watch":
        watch(argv[2])
    elif cmd == "layout":
        _, root = menu(argv[2], argv[3]).GetLayout(0, -1, dbus.Array([], signature="s"))
        print(json.dumps(flatten(root, [])))
    elif cmd == "click":
        try:
            menu(argv[2], argv[3]).Event(int(argv[4]), "clicked", dbus.Int32(0, variant_level=1), dbus.UInt32(0))
        except dbus.exceptions.DBusException as e:
            # An item that ends the app (Quit) may end it before the answer is sent.
            ended = e.get_dbus_name() in ("org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Disconnected")
            if not (ended and "--may-end" in argv[5:]):
                raise
    elif cmd == "activate":
        dbus.Interface(item(argv[2], argv[3]), ITEM).Activate(0, 0)
    elif cmd == "props":
        props = item(argv[2], argv[3]).GetAll(ITEM, dbus_interface=dbus.PROPERTIES_IFACE)
        tooltip = props.get("ToolTip")
        print(json.dumps({
            "title": str(props.get("Title", "")),
            "tooltip": [str(tooltip[2]), str(tooltip[3])] if tooltip else None,
            "icons": [[int(w), int(h), hashlib.sha256(bytes(data)).hexdigest()]
                      for (w, h, data) in props.get("IconPixmap", [])],
        }))
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
