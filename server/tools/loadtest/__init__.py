"""`tortuga loadtest`: whole games played over websockets by many clients at once.

N rooms, each with M seats held by bot-driven websocket clients (no server bots): guests are
made over HTTP, the host creates a private room, every client joins, sits, sends its deal
entropy with ``ready``, the host starts, and the clients play the whole game as a browser
would -- open moves with ``act``, sealed bids by commit and reveal -- choosing with the
game's heuristic bot from the view and legal moves the server sent them. The rooms are
spread over client processes (one event loop each; a room's clients share one, so their
clocks agree); client seat ``s`` talks to ``urls[s % len(urls)]``, so with several nodes the
players of one room are on different nodes.

Without ``--url`` it starts a node of its own (``tortuga serve`` in a child process, with a
temporary data folder, the guest quota off: every client comes from one address) and stops
it with SIGTERM at the end; Redis and Postgres are what the environment says (embedded when
unset). Against given URLs, the site's guest quota must allow ``rooms * players`` guests.

Every room is set up first -- guests, the room, its players seated and ready -- and only
when all of them are (in every client process: a barrier) do the games start: all at once,
or spread over ``ramp`` seconds. The set-up is not what is measured.
With ``games`` above 1 each table plays game after game, each in a new room its players sit
down in once the last is over; with ``ramp`` about a game's length the tables' phases are
spread as a site's are, and the figures of the time every room was playing (the last room's
first start to the first room's last game over) are the steady state's.

Figures (``Report.lines``):

- moves/s: moves applied (open moves, plus every seat's move of each revealed sealed phase)
  over the time from the first start to the last game over (wall clock, all processes);
- move latency: an ``act`` sent until the event of the version it made reaches its sender;
- reveal fan-out: the last ``reveal`` of a sealed phase sent until ``revealed`` reaches each
  socket of the room (every socket counts: that is the fan-out);
- errors by code: ``error`` frames, plus ``http-<status> <code>`` (an HTTP call the node
  refused), ``client-<Exception>`` and ``timeout`` for rooms that failed on the client's side.

Modules:

- ``tally``        ``Plan``, ``Tally`` and ``Report``: what is played, measured and said
- ``players``      the clients: one seat (``Player``), one room (``Table``), a client process
- ``play``         ``run``: one plan over client processes
- ``nodes``        a node of its own, and its ``/metrics``, CPU and memory read
- ``raw``          the raw limit (``server.tools.rawlimit`` and its echo clients)
- ``bare``         the bare fan-out server (``server.tools.bare``) and its clients: each step
                   played again with nothing but a move's own I/O, to set the node's CPU
                   per move against
- ``model``        the capacity model of docs/SCALE.md (``--model``)
- ``idle``         idle sockets held on a node, with a probe
- ``results``      ``Options``, ``Step``, ``Campaign``: a whole run's figures and text
- ``whole_run``    ``campaign``: the whole run, steps and ``--against`` included
- ``report_html``  the HTML report
"""

from __future__ import annotations

from server.tools.loadtest.play import run
from server.tools.loadtest.results import Campaign, Options
from server.tools.loadtest.tally import HUMAN_PACE, Plan, Report, Tally, over_time, percentile
from server.tools.loadtest.whole_run import campaign

__all__ = [
    "HUMAN_PACE",
    "Campaign",
    "Options",
    "Plan",
    "Report",
    "Tally",
    "campaign",
    "over_time",
    "percentile",
    "run",
]
