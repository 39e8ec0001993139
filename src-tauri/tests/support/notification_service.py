#!/usr/bin/python3
"""A notification service for tests: owns org.freedesktop.Notifications on the session bus it
runs in, records every Notify and CloseNotification call as a JSON line in LOG, and invokes an
action when asked: a line `invoke <id> <action>` appended to COMMANDS emits ActionInvoked, then
NotificationClosed (reason 2, dismissed), as a real service does once a button is pressed.

Usage: notification_service.py LOG COMMANDS READY — READY is created once the name is owned.
Needs Debian's python3-dbus and python3-gi (run it with /usr/bin/python3).
"""

import json
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


class Service(dbus.service.Object):
    def __init__(self, bus, log_path):
        super().__init__(bus, PATH)
        self.log_path = log_path
        self.next_id = 0

    def record(self, entry):
        with open(self.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry) + "\n")

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, icon, summary, body, actions, hints, timeout):
        if replaces_id:
            nid = int(replaces_id)
        else:
            self.next_id += 1
            nid = self.next_id
        self.record({
            "call": "Notify",
            "id": nid,
            "app_name": str(app_name),
            "replaces_id": int(replaces_id),
            "summary": str(summary),
            "body": str(body),
            # [key, label, key, label, …] as the specification sends them.
            "actions": [str(a) for a in actions],
        })
        return dbus.UInt32(nid)

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, nid):
        self.record({"call": "CloseNotification", "id": int(nid)})
        self.NotificationClosed(nid, dbus.UInt32(3))

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body"]

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("oikos-test-notifications", "oikos", "1.0", "1.2")

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, nid, action):
        pass

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass


def main():
    log_path, commands_path, ready_path = sys.argv[1:4]
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    service = Service(bus, log_path)
    # Kept referenced: the name is released when this object goes.
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    open(commands_path, "a", encoding="utf-8").close()
    offset = [0]

    def poll():
        with open(commands_path, encoding="utf-8") as commands:
            commands.seek(offset[0])
            for line in commands.readlines():
                if not line.endswith("\n"):
                    break
                offset[0] += len(line.encode("utf-8"))
                parts = line.split()
                if len(parts) == 3 and parts[0] == "invoke":
                    nid = dbus.UInt32(int(parts[1]))
                    service.record({"call": "invoke", "id": int(parts[1]), "action": parts[2]})
                    service.ActionInvoked(nid, parts[2])
                    service.NotificationClosed(nid, dbus.UInt32(2))
        return True

    GLib.timeout_add(100, poll)
    with open(ready_path, "w", encoding="utf-8") as ready:
        ready.write(str(os.getpid()))
    assert name
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
