/* global document, WebSocket, RTCPeerConnection, RTCRtpReceiver, ResizeObserver, setTimeout, clearTimeout */
/* eslint-disable @typescript-eslint/no-this-alias -- plain functions keep the component readable without a build; "self" is the component inside callbacks */
// The live view's browser side: a Dashboard 2.0 component, hand-written (no build step) as a UMD file.
// The dashboard imports it from /resources/<package>/ and reads window['vision-streaming-live'];
// Node (the unit tests) gets the same object from require(). Vue is the dashboard's own (window.Vue),
// looked up only when the component renders, so the pure helpers load without it.
(function (root, factory) {
  var api = factory(function () {
    return root.Vue;
  });
  if (typeof module === 'object' && module && module.exports) module.exports = api;
  else root['vision-streaming-live'] = api;
})(typeof globalThis !== 'undefined' ? globalThis : this, function (getVue) {
  'use strict';

  /** The socket event a browser asks its own ticket with, and gets the answer on. */
  var TICKET_EVENT = 'vision-streaming-live:ticket';
  /** How long a face's box stays after its event ("gone after a moment"). */
  var BOX_MS = 1500;
  /** How long an arrival or departure stays on its tile. */
  var NOTE_MS = 6000;
  /** A ticket request that gets no answer in this time is asked again. */
  var TICKET_WAIT_MS = 10000;
  /** A peer connection 'disconnected' for this long is rejoined. */
  var DISCONNECTED_MS = 4000;
  var COLOURS = { person: '#1b8a3a', visitor: '#e07b00', unknown: '#d32f2f' };

  /** Where a face's box goes over a video shown with object-fit: contain (letterboxing included); null when the box is not inside the picture. */
  function placeBox(location, picture, shown) {
    if (!isBox(location) || !(picture.width > 0) || !(picture.height > 0) || !(shown.width > 0) || !(shown.height > 0)) return null;
    // One pixel of slack: the service's boxes are right/bottom exclusive and may touch the edge.
    if (location.left < -1 || location.top < -1 || location.right > picture.width + 1 || location.bottom > picture.height + 1) return null;
    var scale = Math.min(shown.width / picture.width, shown.height / picture.height);
    var offsetX = (shown.width - picture.width * scale) / 2;
    var offsetY = (shown.height - picture.height * scale) / 2;
    return {
      left: offsetX + Math.max(0, location.left) * scale,
      top: offsetY + Math.max(0, location.top) * scale,
      width: (Math.min(picture.width, location.right) - Math.max(0, location.left)) * scale,
      height: (Math.min(picture.height, location.bottom) - Math.max(0, location.top)) * scale,
    };
  }

  function isBox(b) {
    if (!b || typeof b !== 'object') return false;
    var keys = ['left', 'top', 'right', 'bottom'];
    for (var i = 0; i < keys.length; i++) if (typeof b[keys[i]] !== 'number' || !isFinite(b[keys[i]])) return false;
    return b.right > b.left && b.bottom > b.top;
  }

  /** What a face event shows: its colour kind and its text; null for anything that is not a face event with a box. */
  function faceView(e) {
    if (!e || typeof e !== 'object' || typeof e.stream_id !== 'string' || !isBox(e.location)) return null;
    if (e.event !== 'match' && e.event !== 'unknown' && e.event !== 'arrived') return null;
    var name = typeof e.name === 'string' && e.name ? e.name : typeof e.label === 'string' && e.label ? e.label : null;
    var kind = e.event === 'match' || e.kind === 'person' ? 'person' : typeof e.visitor_id === 'string' ? 'visitor' : 'unknown';
    var text = kind === 'person' ? name || 'known face' : kind === 'visitor' ? 'visitor ' + e.visitor_id.slice(0, 8) : 'unknown';
    return { kind: kind, text: text, colour: COLOURS[kind] };
  }

  /** The words an arrival or departure shows on its tile; null for other events. */
  function presenceNote(e) {
    if (!e || (e.event !== 'arrived' && e.event !== 'left') || typeof e.stream_id !== 'string') return null;
    var who = typeof e.name === 'string' && e.name ? e.name : typeof e.label === 'string' && e.label ? e.label : typeof e.visitor_id === 'string' ? 'visitor ' + e.visitor_id.slice(0, 8) : 'a stranger';
    return who + (e.event === 'arrived' ? ' arrived' : ' left');
  }

  /** How long from the picture to the box now: the event's own latency plus the time since it was made. */
  function lagMs(e, now) {
    var own = typeof e.latency_ms === 'number' && isFinite(e.latency_ms) ? e.latency_ms : 0;
    var made = typeof e.time === 'string' ? Date.parse(e.time) : NaN;
    return Math.max(0, Math.round(own + (isFinite(made) ? Math.max(0, now - made) : 0)));
  }

  /** The codec names a connect message takes, as the browser's receiver names them. */
  var MIME = { VP8: 'video/VP8', VP9: 'video/VP9', H264: 'video/H264' };

  /** True when this browser can decode the codec (unknown when it cannot tell: then it tries). */
  function canPlay(codec) {
    if (typeof RTCRtpReceiver === 'undefined' || !RTCRtpReceiver.getCapabilities) return true;
    var caps = RTCRtpReceiver.getCapabilities('video');
    if (!caps) return true;
    var mime = MIME[codec];
    return caps.codecs.some(function (c) {
      return c.mimeType.toLowerCase() === String(mime).toLowerCase();
    });
  }

  /** The stream ids or labels the settings keep (empty: all). */
  function wanted(text) {
    return String(text || '')
      .split(/[\s,]+/)
      .filter(Boolean);
  }

  function labelsOf(text) {
    if (!text) return {};
    try {
      var parsed = JSON.parse(text);
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
    } catch {
      return {};
    }
  }

  var component = {
    name: 'VisionStreamingLive',
    inject: ['$socket'],
    props: {
      id: { type: String, required: true },
      props: { type: Object, default: function () { return {}; } },
      state: { type: Object, default: function () { return { enabled: true, visible: true }; } },
    },
    data: function () {
      return { tiles: [], message: '', problem: false, ignored: 0, phase: 'starting', tick: 0 };
    },
    created: function () {
      // Connection objects are not reactive: Vue must not wrap a peer connection in a proxy.
      this.$live = { ws: null, pc: null, request: 0, timers: new Set(), streams: {}, attempt: 0, stopped: false, labels: {}, waitTicket: null, disconnectedAt: null };
    },
    mounted: function () {
      var self = this;
      this.$live.onTicket = function (id, request, answer) {
        if (id === self.id) self.onTicket(request, answer);
      };
      this.$live.onInput = function (msg) {
        self.onInput(msg);
      };
      this.$live.onVisibility = function () {
        if (document.hidden) self.pause();
        else self.start();
      };
      this.$socket.on(TICKET_EVENT, this.$live.onTicket);
      this.$socket.on('msg-input:' + this.id, this.$live.onInput);
      document.addEventListener('visibilitychange', this.$live.onVisibility);
      if (typeof ResizeObserver !== 'undefined') {
        this.$live.resize = new ResizeObserver(function () {
          self.tick++;
        });
        this.$live.resize.observe(this.$el);
      }
      this.start();
    },
    beforeUnmount: function () {
      this.$live.stopped = true;
      this.$socket.off(TICKET_EVENT, this.$live.onTicket);
      this.$socket.off('msg-input:' + this.id, this.$live.onInput);
      document.removeEventListener('visibilitychange', this.$live.onVisibility);
      if (this.$live.resize) this.$live.resize.disconnect();
      this.leave();
      this.$live.timers.forEach(clearTimeout);
      this.$live.timers.clear();
    },
    methods: {
      later: function (ms, fn) {
        var live = this.$live;
        var t = setTimeout(function () {
          live.timers.delete(t);
          fn();
        }, ms);
        live.timers.add(t);
        return t;
      },
      say: function (text, problem) {
        this.message = text;
        this.problem = !!problem;
      },
      /** Asks Node-RED for a ticket of this browser's own (a hidden tab waits until it is shown). */
      start: function () {
        var live = this.$live;
        if (live.stopped) return;
        if (document.hidden) {
          this.pause();
          return;
        }
        if (live.ws || live.pending) return;
        live.request++;
        live.pending = live.request;
        this.phase = 'ticket';
        var self = this;
        var request = live.request;
        live.waitTicket = this.later(TICKET_WAIT_MS, function () {
          if (live.pending !== request) return;
          live.pending = 0;
          self.say('Node-RED did not answer the ticket request; asking again.', true);
          self.retry();
        });
        this.$socket.emit(TICKET_EVENT, this.id, request);
      },
      onTicket: function (request, answer) {
        var live = this.$live;
        if (request !== live.pending) return;
        live.pending = 0;
        if (live.waitTicket) clearTimeout(live.waitTicket);
        if (live.stopped || document.hidden) return;
        if (!answer || !answer.ok) {
          this.say((answer && answer.message) || 'no ticket', true);
          this.phase = 'error';
          this.retry(answer && answer.retryAfterMs);
          return;
        }
        // Events carry Node-RED's time: a page on a machine whose clock is off still shows the right lag.
        if (typeof answer.serverTime === 'number') live.clockOffset = answer.serverTime - Date.now();
        this.join(answer);
      },
      /** Signaling as a downstream client: connect, answer the offer and every update, pong every ping. */
      join: function (ticket) {
        var self = this;
        var live = this.$live;
        if (!canPlay(ticket.codec)) {
          var instead = ticket.codec === 'VP8' ? 'H264' : 'VP8';
          this.say('This browser cannot play ' + ticket.codec + ': publish the cameras as ' + instead + ' (the camera node and the publish command can encode it), and set the live view to ' + instead + '.', true);
          this.phase = 'error';
          return;
        }
        this.phase = 'joining';
        var ws = new WebSocket(ticket.url);
        live.ws = ws;
        live.streams = {};
        var send = function (m) {
          if (ws.readyState === 1) ws.send(JSON.stringify(m));
        };
        ws.onopen = function () {
          send({ type: 'connect', role: 'downstream', channel_id: ticket.roomId, multistream: true, metadata: { access_token: ticket.token }, video: { codec_type: ticket.codec }, audio: false });
        };
        ws.onmessage = function (event) {
          var m;
          try {
            m = JSON.parse(event.data);
          } catch {
            return;
          }
          if (live.ws !== ws) return;
          if (m.type === 'ping') send({ type: 'pong' });
          else if (m.type === 'offer') self.negotiate(m, send, 'answer');
          else if (m.type === 'update' || m.type === 're-offer') self.negotiate(m, send, m.type === 'update' ? 'update' : 're-answer');
        };
        ws.onclose = function (event) {
          if (live.ws !== ws) return;
          var reason = event.reason ? ' (' + event.reason + ')' : '';
          self.leave();
          if (live.stopped || document.hidden) return;
          self.say(event.reason === 'RAPI-INVALID-TOKEN' ? 'The service refused the ticket; asking for a new one.' : 'The room connection closed' + reason + '; rejoining.', true);
          self.retry();
        };
      },
      negotiate: function (m, send, answerType) {
        var self = this;
        var live = this.$live;
        var pc = live.pc;
        if (!pc) {
          var config = m.config && Array.isArray(m.config.iceServers) ? { iceServers: m.config.iceServers } : {};
          pc = new RTCPeerConnection(config);
          live.pc = pc;
          pc.ontrack = function (event) {
            var stream = event.streams && event.streams[0];
            if (stream && stream.id !== 'default' && stream.id !== m.client_id) live.streams[event.transceiver.mid] = stream;
            self.syncTiles();
          };
          pc.onicecandidate = function (event) {
            if (event.candidate && event.candidate.candidate) send({ type: 'candidate', candidate: event.candidate.candidate });
          };
          pc.onconnectionstatechange = function () {
            if (live.pc !== pc) return;
            var s = pc.connectionState;
            if (s === 'connected') {
              live.attempt = 0;
              live.disconnectedAt = null;
              self.phase = 'playing';
              self.say('', false);
            } else if (s === 'failed') {
              self.rejoin('The picture was lost; rejoining.');
            } else if (s === 'disconnected') {
              live.disconnectedAt = Date.now();
              self.later(DISCONNECTED_MS, function () {
                if (live.pc === pc && pc.connectionState === 'disconnected') self.rejoin('The picture stalled; rejoining.');
              });
            }
          };
        }
        pc.setRemoteDescription({ type: 'offer', sdp: m.sdp })
          .then(function () {
            return pc.createAnswer();
          })
          .then(function (answer) {
            return pc.setLocalDescription(answer).then(function () {
              send({ type: answerType, sdp: answer.sdp });
              self.syncTiles();
            });
          })
          .catch(function (err) {
            if (live.pc === pc) self.rejoin('The room\'s offer could not be answered (' + (err && err.message ? err.message : err) + '); rejoining.');
          });
      },
      /** One tile per stream the room plays now (m-lines the last offer left inactive have none). */
      syncTiles: function () {
        var live = this.$live;
        var pc = live.pc;
        var keep = wanted(this.props.streams);
        var labels = labelsOf(this.props.labels);
        var next = [];
        if (pc) {
          pc.getTransceivers().forEach(function (t) {
            var stream = live.streams[t.mid];
            var dir = t.currentDirection || t.direction;
            if (!stream || t.stopped || (dir !== 'recvonly' && dir !== 'sendrecv')) return;
            if (!stream.getVideoTracks().some(function (track) { return track.readyState === 'live'; })) return;
            var label = labels[stream.id] || live.labels[stream.id] || 'camera ' + stream.id.slice(0, 8);
            if (keep.length && keep.indexOf(stream.id) < 0 && keep.indexOf(label) < 0) return;
            next.push({ streamId: stream.id, stream: stream, label: label });
          });
        }
        var old = {};
        this.tiles.forEach(function (tile) {
          old[tile.streamId] = tile;
        });
        this.tiles = next.map(function (n) {
          var tile = old[n.streamId];
          if (tile) {
            tile.label = n.label;
            return tile;
          }
          return { streamId: n.streamId, label: n.label, boxes: [], notes: [], seq: 0, stream: getVue().markRaw(n.stream) };
        });
        this.tiles.forEach(function (tile, i) {
          tile.stream = getVue().markRaw(next[i].stream);
        });
        if (this.phase === 'playing' && this.tiles.length === 0) this.say('No camera is publishing into this room now.', false);
        else if (this.phase === 'playing' && !this.problem) this.say('', false);
      },
      leave: function () {
        var live = this.$live;
        var ws = live.ws;
        var pc = live.pc;
        live.ws = null;
        live.pc = null;
        live.streams = {};
        if (ws) {
          ws.onclose = null;
          try {
            if (ws.readyState === 1) ws.send(JSON.stringify({ type: 'disconnect' }));
            ws.close(1000);
          } catch {
            /* already closed */
          }
        }
        if (pc) pc.close();
        this.tiles = [];
      },
      rejoin: function (why) {
        this.leave();
        this.say(why, true);
        this.retry();
      },
      /** Asks again with a fresh ticket after a growing pause (0.5 s doubling to 15 s). */
      retry: function (afterMs) {
        var live = this.$live;
        if (live.stopped || live.retrying) return;
        live.retrying = true;
        var delay = typeof afterMs === 'number' ? afterMs : Math.min(15000, 500 * Math.pow(2, live.attempt));
        live.attempt++;
        var self = this;
        this.later(delay, function () {
          live.retrying = false;
          self.start();
        });
      },
      /** A hidden tab downloads nothing: the peer connection closes until the tab is shown again. */
      pause: function () {
        var live = this.$live;
        live.pending = 0;
        this.leave();
        this.phase = 'paused';
        this.say('Paused while the page is hidden.', false);
      },
      onInput: function (msg) {
        if (!msg || typeof msg !== 'object') return;
        if (msg.topic === 'room') {
          // Node-RED switched this view to another room: every browser joins it with a fresh ticket.
          this.$live.attempt = 0;
          this.leave();
          this.say('Switching room.', false);
          this.start();
          return;
        }
        var e = msg.payload;
        if (!e || typeof e !== 'object') {
          this.ignored++;
          return;
        }
        if (typeof e.stream_id === 'string' && typeof e.stream_label === 'string' && e.stream_label) {
          if (this.$live.labels[e.stream_id] !== e.stream_label) {
            this.$live.labels[e.stream_id] = e.stream_label;
            this.syncTiles();
          }
        }
        var tile = this.tiles.find(function (t) {
          return t.streamId === e.stream_id;
        });
        var note = presenceNote(e);
        if (note && tile) this.note(tile, note);
        if (e.event === 'left' || this.props.faces === false) return;
        var view = faceView(e);
        if (!view) {
          this.ignored++;
          return;
        }
        if (!tile) return;
        var video = this.videoOf(tile);
        if (video && video.videoWidth > 0 && !placeBox(e.location, { width: video.videoWidth, height: video.videoHeight }, { width: video.videoWidth, height: video.videoHeight })) {
          this.ignored++;
          return;
        }
        // One box per track: the newest event of a face replaces its box.
        var key = typeof e.track === 'number' ? 't' + e.track : 'k' + ++tile.seq;
        // Boxes are told apart by a number: the tile holds Vue's proxies of them, not these objects.
        var serial = ++tile.seq;
        var box = { key: key, serial: serial, view: view, location: e.location, lag: lagMs(e, Date.now() + (this.$live.clockOffset || 0)), shownAt: Date.now() };
        tile.boxes = tile.boxes
          .filter(function (b) {
            return b.key !== key;
          })
          .concat([box]);
        this.later(BOX_MS, function () {
          tile.boxes = tile.boxes.filter(function (b) {
            return b.serial !== serial;
          });
        });
      },
      note: function (tile, text) {
        var item = { key: ++tile.seq, text: text };
        tile.notes = tile.notes.concat([item]).slice(-3);
        this.later(NOTE_MS, function () {
          tile.notes = tile.notes.filter(function (n) {
            return n.key !== item.key;
          });
        });
      },
      videoOf: function (tile) {
        var el = this.$el && this.$el.querySelector ? this.$el.querySelector('video[data-stream="' + tile.streamId.replace(/"/g, '') + '"]') : null;
        return el;
      },
      attach: function (el, tile) {
        if (!el) return;
        var self = this;
        if (el.srcObject !== tile.stream) {
          el.srcObject = tile.stream;
          el.onloadedmetadata = el.onresize = function () {
            self.tick++;
          };
          var played = el.play();
          if (played && played.catch) played.catch(function () {});
        }
      },
    },
    render: function () {
      var vue = getVue();
      var h = vue.h;
      var self = this;
      void this.tick; // re-render when a tile's size or picture size changes
      var height = Number(this.props.tileHeight) > 0 ? Number(this.props.tileHeight) : 240;
      var tiles = this.tiles.map(function (tile) {
        var video = self.videoOf(tile);
        var picture = video ? { width: video.videoWidth, height: video.videoHeight } : { width: 0, height: 0 };
        var shown = video ? { width: video.clientWidth, height: video.clientHeight } : { width: 0, height: 0 };
        var boxes = tile.boxes.map(function (b) {
          var at = placeBox(b.location, picture, shown);
          if (!at) return null;
          return h(
            'div',
            {
              key: b.key,
              class: 'vs-live-box vs-live-' + b.view.kind,
              'data-kind': b.view.kind,
              'data-key': b.key,
              'data-lag-ms': String(b.lag),
              'data-shown-at': String(b.shownAt),
              style: { position: 'absolute', left: at.left + 'px', top: at.top + 'px', width: at.width + 'px', height: at.height + 'px', border: '3px solid ' + b.view.colour, boxSizing: 'border-box', pointerEvents: 'none' },
            },
            [
              h('span', { class: 'vs-live-name', style: { position: 'absolute', left: '-3px', bottom: '100%', background: b.view.colour, color: '#fff', font: '12px/1.4 sans-serif', padding: '0 4px', whiteSpace: 'nowrap' } }, b.view.text),
              h('span', { class: 'vs-live-lag', style: { position: 'absolute', left: '-3px', top: '100%', background: 'rgba(0,0,0,0.6)', color: '#fff', font: '11px/1.4 sans-serif', padding: '0 4px', whiteSpace: 'nowrap' } }, 'lag ' + b.lag + ' ms'),
            ],
          );
        });
        return h('figure', { key: tile.streamId, class: 'vs-live-tile', 'data-stream': tile.streamId, style: { position: 'relative', margin: 0, flex: '1 1 280px', minWidth: '200px' } }, [
          h('div', { style: { position: 'relative', height: height + 'px', background: '#000', overflow: 'hidden' } }, [
            h('video', {
              'data-stream': tile.streamId,
              muted: true,
              autoplay: true,
              playsinline: true,
              style: { width: '100%', height: '100%', objectFit: 'contain', display: 'block' },
              ref: function (el) {
                self.attach(el, tile);
              },
            }),
            h('div', { class: 'vs-live-boxes', role: 'list', 'aria-label': 'faces on ' + tile.label, style: { position: 'absolute', inset: 0 } }, boxes.filter(Boolean)),
            h(
              'div',
              { class: 'vs-live-notes', 'aria-live': 'polite', style: { position: 'absolute', right: '4px', top: '4px', textAlign: 'right' } },
              tile.notes.map(function (n) {
                return h('div', { key: n.key, class: 'vs-live-note', style: { background: 'rgba(0,0,0,0.6)', color: '#fff', font: '12px/1.4 sans-serif', padding: '0 4px', marginBottom: '2px' } }, n.text);
              }),
            ),
          ]),
          h('figcaption', { class: 'vs-live-label', style: { font: '13px/1.6 sans-serif' } }, tile.label),
        ]);
      });
      var footer = [];
      if (this.message) footer.push(h('div', { class: 'vs-live-message' + (this.problem ? ' vs-live-problem' : ''), role: this.problem ? 'alert' : 'status', style: { font: '13px/1.5 sans-serif', color: this.problem ? '#d32f2f' : 'inherit' } }, this.message));
      if (this.ignored > 0) footer.push(h('div', { class: 'vs-live-ignored', style: { font: '11px/1.5 sans-serif', opacity: 0.7 } }, this.ignored + ' malformed face event' + (this.ignored === 1 ? '' : 's') + ' ignored'));
      return h('div', { class: 'vs-live', 'data-phase': this.phase, style: { width: '100%' } }, [h('div', { class: 'vs-live-tiles', style: { display: 'flex', flexWrap: 'wrap', gap: '6px' } }, tiles)].concat(footer));
    },
  };

  return { VisionStreamingLive: component, TICKET_EVENT: TICKET_EVENT, placeBox: placeBox, faceView: faceView, presenceNote: presenceNote, lagMs: lagMs };
});
