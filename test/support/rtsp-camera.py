#!/usr/bin/python3
"""An IP camera for tests: serves an H.264 (Baseline) stream over RTSP on 127.0.0.1 with a
password, paced in real time, made from a folder of JPEG frames (0001.jpg, 0002.jpg, ... looped).
Usage: rtsp-camera.py PORT USER PASSWORD FRAMES_DIR FPS; prints "ready" once it listens."""
import sys
import gi
gi.require_version('Gst', '1.0')
gi.require_version('GstRtspServer', '1.0')
from gi.repository import Gst, GstRtspServer, GLib

port, user, password, frames, fps = sys.argv[1:6]
Gst.init(None)
server = GstRtspServer.RTSPServer()
server.set_address('127.0.0.1')
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(
    f'( multifilesrc location={frames}/%04d.jpg index=1 start-index=1 loop=true caps=image/jpeg,framerate={fps}/1 '
    f'! jpegdec ! videoconvert ! video/x-raw,format=I420 ! x264enc tune=zerolatency speed-preset=ultrafast threads=1 key-int-max={fps} '
    '! video/x-h264,profile=baseline ! rtph264pay name=pay0 pt=96 config-interval=-1 )')
factory.set_shared(True)
auth = GstRtspServer.RTSPAuth()
token = GstRtspServer.RTSPToken()
token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, 'viewer')
auth.add_basic(GstRtspServer.RTSPAuth.make_basic(user, password), token)
server.set_auth(auth)
perms = GstRtspServer.RTSPPermissions()
perms.add_role_from_structure(Gst.Structure.new_from_string('viewer, media.factory.access=(boolean)true, media.factory.construct=(boolean)true'))
factory.set_permissions(perms)
server.get_mount_points().add_factory('/stream1', factory)
server.attach(None)
print('ready', flush=True)
GLib.MainLoop().run()
