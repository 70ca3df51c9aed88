"""Schemathesis hooks of tests/schemathesis/run.sh (loaded through `hooks` in the config).

`positive_data_acceptance` (ST202) sends data valid by the document and fails on a 400. Six kinds of
refusals are right although the data is schema-valid, because the rule cannot be written in the
document; only those are dropped, each recognised by the exact `detail` the server gives. The
request is still sent and every other check still applies to its response (no 5xx, documented
status, content type and schema). Every other failure of every check fails the run.

1. Integers written as whole floats. OpenAPI 3.1 uses JSON Schema 2020-12, where `2.0` *is* an
   integer, so Schemathesis sends `{"players": 2.0}` as valid data. The server's JSON reader
   (serde) takes integers only in integer spelling ("invalid type: floating point `2.0`,
   expected u8"). JSON Schema cannot say "written without a fraction".
2. Cursors (`after`, `Last-Event-ID` of a table's events and stream) are opaque and signed by the
   server: any string is a valid cursor by shape, only the server's are accepted ("that cursor is
   not one this server gave").
3. A replay step beyond the steps the game has so far ("at is 1 to N"): N is the game's length
   at the time of the request, not a number the document can hold.
4. Rules that relate a field to other fields or to the state, which utoipa cannot write
   (JSON Schema's if/then, or no schema at all): the gathering settings' "the commentary view
   must be delayed" (R10.8: `commentary: true` needs a spectator delay); a table's settings
   naming a seat at or beyond `players` (R2.6) or a class list that is not one per seat or needs
   classes on (R9.8.4); a practice position for another seat count or with cards the pool lacks
   (R10.13); a seat number at or beyond the table's size; `seat` left out by a caller who holds
   several seats; `dark_mode` other than `standard` under the `current` ruleset (R10.11: a
   setting of `classic-1.0` only).
5. Bodies that depend on the table's or gathering's game. The document gives a table's
   settings and answers, and a gathering's settings, as either game's (`anyOf`), because the
   game is named by another field (`game` of the same body) or by the table the answer goes to:
   one game's settings in a body that names the other game (or none: The Final Flicker), one
   game's answer sent to a table of the other, and a seat count outside the named game's range
   (`players` and a gathering's `max_circle` are documented for both; X2.1 allows 4 to 8) are
   rightly refused, and so is a gathering's settings change naming the other game (the game is
   fixed at creation).
6. A table chat message that is blank once trimmed, or holds a control character (a line
   break included): JSON Schema's `minLength` counts the spaces the server trims, and the
   document cannot say "no control characters" (docs/rules-decisions.md 75).
"""

import json
import os
import re

import schemathesis

# (reason, pattern of the response's `detail`), by the numbers of the module docs.
SCHEMA_VALID_BUT_REFUSED = [
    ("1 integer written as a float", re.compile(r"^invalid type: floating point `-?\d+(\.0)?(e\d+)?`, expected [ui](8|16|32|64|size)\b")),
    ("2 cursor not the server's", re.compile(r"^that cursor is not one this server gave$")),
    ("3 replay step beyond the game", re.compile(r"^at is 1 to \d+$")),
    ("4 commentary needs a delay", re.compile(r"^R10\.8: the commentary view must be delayed: ")),
    ("4 first player's seat beyond players", re.compile(r"^R2\.6: no seat \d+ at a table of \d+$")),
    ("4 seat classes not one per seat", re.compile(r"^R9\.8\.4: seat_classes ")),
    ("4 position for another table or pool", re.compile(r"^R10\.13: ")),
    ("4 seat beyond the table's size", re.compile(r"^no seat \d+ at this table$")),
    ("4 seat left out by a holder of several", re.compile(r"^you hold several seats: name one with 'seat'$")),
    ("4 dark_mode outside classic-1.0", re.compile(r"^R10\.11: dark_mode is a setting of classic-1\.0 only$")),
    ("5 the other game's gathering setting", re.compile(r"^\w+ is a setting of (lets-call-the-exorcist|the-final-flicker) gatherings")),
    ("5 the other game's table setting", re.compile(r"^unknown field `(target|first_seeker)`, expected one of `ruleset`")),
    ("5 the other game's table setting", re.compile(r"^unknown field `\w+`, expected one of `players`, `target`")),
    ("5 the other game's answer", re.compile(r"^unknown variant `(card|peek|decline|peek_tile|player|pick)`, expected one of `turn_order`")),
    ("5 the other game's answer", re.compile(r"^unknown variant `\w+`, expected one of `card`")),
    ("5 the other game's answer", re.compile(r"^unknown field `\w+`, expected `cards`$")),
    ("5 the other game in a gathering's settings", re.compile(r"^game is fixed at creation: this gathering plays [\w-]+, not [\w-]+$")),
    ("6 chat message blank once trimmed", re.compile(r"^the message is empty$")),
    ("6 chat message with a control character", re.compile(r"^a message is one line, with no control characters$")),
    ("5 seats outside the game's range", re.compile(r"^X2\.1: Let's Call the Exorcist is for 4 to 8 players, not \d+$")),
    ("5 seats outside the game's range", re.compile(r"^X2\.1: lets-call-the-exorcist seats 4 to 8, so max_circle is 4 to 8 ")),
]


@schemathesis.hook
def filter_failure(context, failure, case, response):
    if failure.code != "ST202" or response.status_code != 400:
        return True
    try:
        detail = json.loads(response.content)["detail"]
    except (ValueError, KeyError, TypeError):
        return True
    for reason, pattern in SCHEMA_VALID_BUT_REFUSED:
        if pattern.match(detail):
            # run.sh prints how many of each it dropped.
            log = os.environ.get("SCHEMATHESIS_DROPPED_LOG")
            if log:
                with open(log, "a") as f:
                    f.write(f"{reason}: {case.operation.label}\n")
            return False
    return True
