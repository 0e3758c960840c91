from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from adapters.pictures import (
    balance_series,
    card_face,
    render_balance_chart,
    render_challenge,
    render_count,
    render_nets_chart,
    render_rating_chart,
)
from adapters.pictures._canvas import safe_text
from adapters.pictures._raster import fit_text
from adapters.pictures.samples import challenge_example, count_example, ledger_example
from core.serial.record import replay
from core.serial.rules import RankOrder
from core.serial.text import count_picture_words, result_line
from tests.adapters.pictures.cases import CASES, differing_fraction, golden_path, matches

REGEN = os.environ.get("LIARS_REGEN_GOLDENS") == "1"


@pytest.mark.parametrize("name", sorted(CASES))
def test_picture_matches_its_golden(name: str) -> None:
    png = CASES[name]()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    if REGEN:
        golden_path(name).write_bytes(png)
        pytest.skip("golden rewritten (LIARS_REGEN_GOLDENS=1)")
    golden = golden_path(name).read_bytes()
    assert matches(png, golden), f"{name}: {differing_fraction(png, golden):.4%} of pixels differ"


def _golden(name: str) -> bytes:
    return golden_path(name).read_bytes()


def test_count_with_one_digit_changed_does_not_match() -> None:
    data = count_example()
    data["serials"]["p2"] = "CF 92859818 D"  # one digit of Bob's bill, not a zero
    assert not matches(render_count(data), _golden("count"))


def test_count_of_a_made_bid_does_not_match() -> None:
    data = count_example()
    data["outcome"] = {**data["outcome"], "made": True, "count": 6, "net": {"p1": -1, "p2": -1, "p3": 2}}
    assert not matches(render_count(data), _golden("count"))


def test_challenge_with_another_suit_does_not_match() -> None:
    data = challenge_example()
    data["hand"][1] = "7D"
    assert not matches(render_challenge(data), _golden("challenge"))


def test_the_challenge_draws_the_games_words_from_its_data() -> None:
    data = challenge_example()
    data["words"] = {**data["words"], "claim": "{active} claimed “{declared}”"}
    assert not matches(render_challenge(data), _golden("challenge"))
    jokers = {**challenge_example(), "hand": ["JK", "7H", "7C", "6D", "2S"]}
    wild = {**jokers, "words": {**jokers["words"], "joker": "WILD"}}
    assert render_challenge(jokers) != render_challenge(wild)  # the joker's face says what the game calls it
    for key in ("title", "floor", "floor_note", "shows", "value", "fails", "out", "right"):  # every line is the game's
        other = {**challenge_example(), "words": {**challenge_example()["words"], key: "autre {active}"}}
        assert render_challenge(other) != render_challenge(challenge_example()), key
    holding = {**challenge_example(), "holds": True, "out": "ellie"}
    for key in ("holds", "wrong"):
        other = {**holding, "words": {**holding["words"], key: "autre"}}
        assert render_challenge(other) != render_challenge(holding), key


def test_a_challenge_line_too_long_for_the_picture_is_cut_to_fit() -> None:
    data = challenge_example()
    data["words"] = {**data["words"], "title": "Challenge: {challenger} calls {active} " + "and on " * 40}
    png = render_challenge(data)
    assert _size(png) == (760, 420) and png != render_challenge(challenge_example())
    assert fit_text("x" * 300, "sans-bold", 17, 720).endswith("…")
    assert fit_text("Challenge: Ellie calls Dirk", "sans-bold", 17, 720) == "Challenge: Ellie calls Dirk"


def test_chart_of_another_ledger_does_not_match() -> None:
    rows = ledger_example()
    rows[0] = {**rows[0], "units": rows[0]["units"] + 2}
    rows[1] = {**rows[1], "units": rows[1]["units"] - 2}
    golden = _golden("balances")
    assert not matches(render_balance_chart(balance_series(rows), {"p1": "Alice"}), golden)


def test_the_sample_is_the_rules_worked_example_as_the_engine_scores_it() -> None:
    data = count_example()
    serials = {p: s.split()[1] for p, s in data["serials"].items()}
    record = {"rules": "classic", "players": ["p1", "p2", "p3"],
              "rounds": [{"serials": serials, "opener": "p1", "actions": data["actions"]}]}
    (scored,) = replay(record)["rounds"]
    expected = {k: v for k, v in data["outcome"].items() if k != "serials"}
    assert {k: scored[k] for k in expected} == expected
    assert result_line(scored) == "5 zeros against a bid of 6 — not made"


def test_renders_are_deterministic_and_thread_safe() -> None:
    expected = {name: CASES[name]() for name in ("count", "challenge", "nets")}
    assert CASES["count"]() == expected["count"]  # byte-identical, not just close
    results: list[tuple[str, bytes]] = []
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            for _ in range(2):
                results.append((name, CASES[name]()))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in expected for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 12
    assert all(png == expected[name] for name, png in results)


def _size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


@pytest.mark.parametrize("digits", ["123", "40404", "9876543210"])
def test_count_handles_other_serial_lengths_and_bare_serials(digits: str) -> None:
    data: dict[str, Any] = {
        "serials": {"a": digits, "b": digits[::-1], "c": "ZZ " + digits + " *"},
        "outcome": {"final_bid": {"player": "a", "quantity": 2, "digit": 0}, "final_bid_text": "2 tens",
                    "count": 1, "made": False, "skunk": False, "multiplier": 1, "multiplier_text": "×1",
                    "transfers": [{"from": "a", "to": "b", "units": 1}, {"from": "a", "to": "c", "units": 1}],
                    "net": {"a": -2, "b": 1, "c": 1}},
    }
    data["words"] = count_picture_words(data["outcome"], RankOrder.ZERO_HIGH, None)
    png = render_count(data)
    assert _size(png)[0] == 760
    assert result_line(data["outcome"]) == "1 zero against a bid of 2 — not made"
    assert data["words"]["result"] == "1 ten against a bid of 2 — not made"  # as a zero-high table says it


def test_count_grows_with_players_and_shows_a_push() -> None:
    players = [f"p{i}" for i in range(12)]
    data: dict[str, Any] = {
        "serials": {p: f"{i % 8:08d}" for i, p in enumerate(players)},  # no nines
        "names": {p: "🎲 player " + p + " with a very long display name $x$" for p in players},
        "outcome": {"final_bid": {"player": "p0", "quantity": 3, "digit": 9}, "count": 0, "made": False,
                    "skunk": True, "multiplier": 0, "multiplier_text": "×0 = skunk (2n−6)", "transfers": [],
                    "net": {}},
    }
    data["words"] = count_picture_words(data["outcome"], RankOrder.ZERO_LOW, 7)
    big = render_count(data)
    assert _size(big)[1] > _size(render_count(count_example()))[1]
    assert result_line(data["outcome"]) == "0 nines against a bid of 3 — skunk"
    assert data["words"]["no_payments"] == "No payments: a push."
    assert big != render_count({**data, "words": {**data["words"], "no_payments": ""}})  # the push line is drawn


def test_every_payment_line_fits_the_width_however_wide_the_names() -> None:
    """Twelve players of wide capital names, one paying everyone: the lines break between names to fit the 720 px
    drawn (they once broke at 78 characters and ran off the right edge)."""
    from adapters.pictures._raster import pil_font
    from adapters.pictures.count import COUNT_WIDTH, _prepare

    players = [f"p{i}" for i in range(12)]
    data: dict[str, Any] = {
        "serials": {p: f"{i % 8:08d}" for i, p in enumerate(players)},
        "names": {p: f"MWMWMWMWMWMWM {i}" for i, p in enumerate(players)},
        "outcome": {"final_bid": {"player": "p0", "quantity": 3, "digit": 1}, "count": 5, "made": True,
                    "skunk": False, "multiplier": 1, "multiplier_text": "×1",
                    "transfers": [{"from": "p0", "to": p, "units": 1} for p in players[1:]], "net": {}},
    }
    data["words"] = count_picture_words(data["outcome"], RankOrder.ZERO_LOW, 1)
    lines = _prepare(data)["payments"]
    face = pil_font("sans", 12)
    assert len(lines) > 2 and all(face.getlength(line) <= COUNT_WIDTH - 40 for line in lines), lines
    assert " ".join(lines).count("MWMWMWMWM") == 12  # no name lost: the payer and eleven payees
    # (the two names cut alike at 15 characters, "MWMWMWMWMWMWM…", are told apart by their places)
    assert "MWMWMWMWM… (11)" in " ".join(lines) and "MWMWMWMWM… (12)" in " ".join(lines)
    render_count(data)


def test_the_elimination_count_names_who_leaves_safe() -> None:
    """``{leaves}`` in the game's words is the display name of ``outcome["leaves"]``."""
    data = count_example()
    data["outcome"] = {**data["outcome"], "transfers": [], "net": {}, "leaves": "p2"}
    data["names"] = {"p1": "Ann", "p2": "Bob", "p3": "Cy"}

    def said(no_payments: str) -> bytes:
        return render_count({**data, "words": {**data["words"], "no_payments": no_payments}})

    assert said("{leaves} leaves safe.") == said("Bob leaves safe.") != said("Zed leaves safe.")


def test_every_line_of_the_count_is_the_games_words() -> None:
    """The picture lays out the words the game sends and names nothing itself: change any one and the
    picture changes; with none, only the bills, the names and the figures are drawn."""
    plain = render_count(count_example())
    for key in ("title", "final_bid", "last", "held", "net", "bidder", "result", "multiplier", "pays_each"):
        data = count_example()
        data["words"] = {**data["words"], key: "autre {bidder}" if key == "final_bid" else "autre"}
        assert render_count(data) != plain, key
    by_payee = {**count_example(), "outcome": {**count_example()["outcome"], "transfers": [
        {"from": "p1", "to": "p3", "units": 1}, {"from": "p2", "to": "p3", "units": 1}]}}
    one = {**count_example(), "outcome": {**count_example()["outcome"], "transfers": [
        {"from": "p3", "to": "p1", "units": 2}]}}  # one payer, one payee: "pays"
    mixed = {**count_example(), "outcome": {**count_example()["outcome"], "transfers": [
        {"from": "p1", "to": "p3", "units": 1}, {"from": "p2", "to": "p3", "units": 1},
        {"from": "p1", "to": "p3", "units": 2}]}}  # by payee is shorter: "paid_each" for 1, "paid" for 2
    for key, data in (("paid_each", by_payee), ("pays", one), ("paid", mixed), ("paid_each", mixed)):
        assert render_count(data) != render_count({**data, "words": {**data["words"], key: "autre"}}), key
    words = count_example()["words"]
    assert (words["final_bid"], words["held"]) == ("Final bid: 6 zeros by {bidder}", "zeros")
    assert render_count({**count_example(), "words": {}}) != plain


def test_card_faces() -> None:
    assert card_face("TH")[:2] == ("10", "♥")
    assert card_face("qd")[0] == "Q"
    assert card_face("JK", "JOKER")[:2] == ("JOKER", "★")  # the game's word for it (its picture data says)
    assert card_face("JK")[0] == ""
    assert card_face("7H")[2] == card_face("2D")[2] != card_face("7S")[2] == card_face("AC")[2]
    for bad in ("1H", "7X", "", "K"):
        with pytest.raises(ValueError):
            card_face(bad)
    data = challenge_example()
    data["hand"][0] = "ZZ"
    with pytest.raises(ValueError):
        render_challenge(data)


def test_names_are_made_drawable() -> None:
    assert safe_text("Ann\u0007 🎲") == "Ann ?"
    assert safe_text("x" * 40, limit=10) == "x" * 9 + "…"
    assert safe_text("\u200b") == "?"
    assert safe_text("𝖠𝗅𝗂𝖼𝖾") == "Alice" and safe_text("ｆｕｌｌ") == "full"  # styled letters the fonts lack: plain


def test_a_name_keeps_only_glyphs_both_faces_have() -> None:
    """A name is drawn in the regular face and, for the bidder or a challenge's title, the bold one: every glyph
    safe_text keeps is in both (the bold face lacks some the regular has, which drew as empty boxes)."""
    from adapters.pictures._fonts import _charmap

    both = _charmap("sans") & _charmap("sans-bold")
    only_regular = sorted(_charmap("sans") - _charmap("sans-bold"))
    assert only_regular  # else this test would prove nothing
    kept = safe_text("".join(chr(c) for c in only_regular), limit=10_000)
    assert all(ord(c) in both for c in kept), [c for c in kept if ord(c) not in both]


def test_balance_series_groups_settlements_and_starts_from_given_balances() -> None:
    rows = [{"at": 20.0, "player": "b", "units": -3}, {"at": 10.0, "player": "a", "units": 2},
            {"at": 10.0, "player": "b", "units": -2}, {"at": 20.0, "player": "a", "units": 3}]
    assert balance_series(rows, start={"a": 1}) == [
        (10.0, {"a": 1, "b": 0}), (10.0, {"a": 3, "b": -2}), (20.0, {"a": 6, "b": -5})]
    assert balance_series([]) == []


def test_empty_charts_render() -> None:
    for png in (render_balance_chart([]), render_nets_chart({}), render_rating_chart({})):
        assert _size(png) == (760, 420)


@pytest.mark.parametrize("name", ["A$^$B", "$\\frac$ x", "50$ or 100$", "Bob 🎲"])
def test_a_chart_titled_with_a_name_draws_it_as_text(name: str) -> None:
    """A stats chart's title carries the player's name: it was parsed as matplotlib math (some names failed to
    draw at all, "50$ or 100$" lost its dollars) and drew glyphs the font lacks as boxes."""
    for png in (render_rating_chart({"p": [(0.0, 25.0), (1.0, 26.0)]}, {"p": name}, title=f"{name}'s rating"),
                render_nets_chart({"p": 3}, {"p": name}, title=f"{name} this period")):
        assert _size(png) == (760, 420)


def test_a_users_matplotlibrc_changes_nothing(tmp_path: Any) -> None:
    """Another process whose matplotlib config picks other fonts, hinting, line widths and colours still
    draws the goldens: every setting a picture depends on is pinned, every font loaded by file."""
    config = tmp_path / "mplconfig"
    config.mkdir()
    (config / "matplotlibrc").write_text(
        "font.family: serif\nfont.size: 20\ntext.hinting: force_autohint\nlines.linewidth: 6\n"
        "axes.prop_cycle: cycler('color', ['k'])\nfigure.facecolor: black\naxes.facecolor: yellow\n"
        "text.color: blue\naxes.grid: True\nxtick.labelsize: 20\n"
    )
    out = tmp_path / "out"
    out.mkdir()
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from tests.adapters.pictures.cases import CASES\n"
        "for name in ('count', 'balances'):\n"
        "    Path(sys.argv[1], name + '.png').write_bytes(CASES[name]())\n"
    )
    env = {**os.environ, "MPLCONFIGDIR": str(config)}
    root = Path(__file__).resolve().parents[3]
    subprocess.run([sys.executable, "-c", script, str(out)], check=True, env=env, cwd=root, timeout=120)
    for name in ("count", "balances"):
        assert matches((out / f"{name}.png").read_bytes(), _golden(name)), name


def test_our_png_encoding_decodes_to_the_very_pixels_drawn() -> None:
    from adapters.pictures._raster import encode_png

    image = Image.open(io.BytesIO(CASES["count"]())).convert("RGB")
    for picture in (image, image.crop((0, 0, 1, 1)), image.crop((100, 50, 357, 211)), Image.new("RGB", (3, 2))):
        png = encode_png(picture)
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        again = Image.open(io.BytesIO(png))
        again.load()  # decoding checks every chunk's CRC and the zlib stream
        assert again.mode == "RGB" and again.tobytes() == picture.tobytes()


def _adapter_modules_the_root_imports() -> list[str]:
    """Every adapter module ``bot/bootstrap.py`` imports (inside the functions that build each process:
    ``liars slack``, ``liars discord``, ``liars play``), read from its syntax tree."""
    root = Path(__file__).resolve().parents[3]
    modules: set[str] = set()
    for node in ast.walk(ast.parse((root / "bot" / "bootstrap.py").read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "adapters":  # from adapters import metrics
                modules |= {f"adapters.{alias.name}" for alias in node.names}
            elif node.module.startswith("adapters."):
                modules.add(node.module)
    return sorted(modules)


MATPLOTLIB_AT_START = """
import sys
from adapters.pictures import render
from adapters.pictures.samples import count_picture_example, names_example

def loaded():
    return sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib')[:3]

for module in sys.argv[1:]:
    __import__(module)
print(loaded())
render(count_picture_example(), names_example())  # a count, as a bot draws every round
print(loaded())
render({"chart": "nets", "nets": {"a": 3, "b": -3}})  # the first chart
print(loaded())
"""


def test_a_bot_process_loads_matplotlib_only_for_its_first_chart() -> None:
    """Every adapter module the composition root imports, and drawing a count, load no matplotlib (about a
    fifth of a second and its memory at every start); the first chart does."""
    modules = _adapter_modules_the_root_imports()
    assert {"adapters.slack.app", "adapters.slack.notifier", "adapters.discord.bot", "adapters.console.app"} <= set(
        modules)
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", MATPLOTLIB_AT_START, "bot.cli", "bot.bootstrap", *modules],
                         capture_output=True, text=True, check=True, cwd=root, timeout=120).stdout.splitlines()
    assert out[:2] == ["[]", "[]"], out
    assert out[2] != "[]", out  # the check sees matplotlib once a chart loads it


def _drawn(draw: Any) -> tuple[Any, Any]:
    """A chart drawn on a figure of the charts' size: the figure and a renderer to measure its texts with."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from adapters.pictures.charts import CHART_HEIGHT, CHART_WIDTH

    fig = Figure(figsize=(CHART_WIDTH / 100, CHART_HEIGHT / 100), dpi=100)
    canvas = FigureCanvasAgg(fig)
    draw(fig)
    canvas.draw()  # type: ignore[no-untyped-call]
    return fig, canvas.get_renderer()  # type: ignore[no-untyped-call]


def test_a_nets_chart_of_millions_keeps_its_labels_off_the_names_and_inside() -> None:
    """A bar's label of −75,000,007 was drawn over the player's name, one of +150,000,014 past the edge."""
    from adapters.pictures.charts import _bars

    nets = {"U1": -75_000_007, "U2": 150_000_014, "U3": -75_000_007}
    fig, renderer = _drawn(lambda f: _bars(f, nets, {"U1": "Alice", "U2": "Bob", "U3": "Carol"}, "Nets"))
    [ax] = fig.axes
    names = [t.get_window_extent(renderer) for t in ax.get_yticklabels()]
    labels = [t.get_window_extent(renderer) for t in ax.texts]
    assert len(labels) == 3 and {t.get_text() for t in ax.texts} == {"−75,000,007", "+150,000,014"}
    for box in labels:
        assert 0 <= box.x0 and box.x1 <= fig.bbox.width, box
        assert not any(box.overlaps(name) for name in names), box
    assert [t.get_text() for t in ax.get_xticklabels()] == ["−80M", "0", "80M", "160M"]


def test_a_balance_charts_axis_of_millions_is_short_and_keeps_its_sign() -> None:
    """The axis said "2,000,000" with its minus sign cut off at the picture's edge."""
    from adapters.pictures.charts import _lines

    series = {"U1": [(0.0, 0.0), (1.0, -2_200_000.0)], "U2": [(0.0, 0.0), (1.0, 2_200_000.0)]}
    fig, renderer = _drawn(lambda f: _lines(f, series, None, "Balances", "", time_axis=False, integer=True,
                                            step=True))
    [ax] = fig.axes
    ticks = [t for t in ax.get_yticklabels() if t.get_text()]
    assert "−2M" in [t.get_text() for t in ticks] and "2M" in [t.get_text() for t in ticks]
    assert all(t.get_window_extent(renderer).x0 >= 0 for t in ticks)


def test_a_count_of_millions_fits_its_net_column() -> None:
    """A net of −11000000 was drawn over the count beside it (and without separators)."""
    from adapters.pictures._raster import pil_font
    from adapters.pictures.count import _fitting, _signed

    text = _signed(-11_000_000)
    assert text == "−11,000,000" and _signed(0) == "0" and _signed(7) == "+7"
    size = _fitting(text, "sans-bold", 15, 98)
    assert size < 15 and pil_font("sans-bold", size).getlength(text) <= 98
    assert _fitting("+4", "sans-bold", 15, 98) == 15  # the usual nets keep their size


def test_hours_across_two_days_say_the_day() -> None:
    """A balance chart over 40 hours labelled its axis 00:00 … 12:00, 00:00 … 12:00: which day was which?"""
    from adapters.pictures.charts import _lines

    start = 1_767_225_600.0 + 10 * 86_400  # a midnight, UTC
    series = {"U1": [(start, 0.0), (start + 40 * 3600, 5.0)]}
    fig, _ = _drawn(lambda f: _lines(f, series, None, "Balances", "", time_axis=True, integer=True, step=True))
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels[0] == "Sun 00:00" and labels[-1].startswith("Mon "), labels
    one_day = {"U1": [(start, 0.0), (start + 10 * 3600, 5.0)]}
    fig, _ = _drawn(lambda f: _lines(f, one_day, None, "Balances", "", time_axis=True, integer=True, step=True))
    assert all(":" in t.get_text() and " " not in t.get_text() for t in fig.axes[0].get_xticklabels())


def test_long_or_wide_names_stay_inside_the_charts() -> None:
    """A name of 22 characters lost its start past the nets chart's left edge ("ximilian Alexander-…"), and one of
    16 wide letters its end past the balances chart's right edge (its legend)."""
    from adapters.pictures.charts import _bars, _lines

    names = {"a": "Maximilian Alexander-Wolfgang", "b": "Bob", "w": "WWWWWWWWWWWWWWWWWWWW"}
    fig, renderer = _drawn(lambda f: _bars(f, {"a": 5, "b": -5, "w": 1}, names, "Nets"))
    [ax] = fig.axes
    for label in ax.get_yticklabels():
        box = label.get_window_extent(renderer)
        assert 0 <= box.x0 and box.x1 <= fig.bbox.width, (label.get_text(), box)
    assert {t.get_text() for t in ax.get_yticklabels()} >= {"Bob"}
    series = {"a": [(0.0, 0.0), (1.0, 5.0)], "w": [(0.0, 0.0), (1.0, -5.0)]}
    fig, renderer = _drawn(lambda f: _lines(f, series, names, "Balances", "settlement", time_axis=False,
                                            integer=True, step=True))
    [ax] = fig.axes
    legend = ax.get_legend()
    for text in legend.get_texts():
        box = text.get_window_extent(renderer)
        assert 0 <= box.x0 and box.x1 <= fig.bbox.width, (text.get_text(), box)
        assert text.get_text().endswith("…")  # cut to fit, and said to be


def test_names_the_fonts_cannot_draw_are_told_apart() -> None:
    """山田太郎, 佐藤花子 and 鈴木一郎 were all drawn "????" (🦊 and 🐼 both "?"): the count picture read "… pays 1
    each to ????, ????" and its rows and a chart's bars could not be told apart."""
    from adapters.pictures._fonts import distinct_names
    from adapters.pictures.count import _prepare

    names = {"p1": "山田太郎", "p2": "佐藤花子", "p3": "Ann", "p4": "Ann", "p5": "🦊", "p6": "Bob 山田"}
    players = list(names)
    drawn = distinct_names(names, players)
    assert drawn == {"p1": "Player 1", "p2": "Player 2", "p3": "Ann (3)", "p4": "Ann (4)", "p5": "Player 5",
                     "p6": "Bob ??"}
    assert distinct_names({"p1": "Ann", "p2": "Bob"}, ["p1", "p2"]) == {"p1": "Ann", "p2": "Bob"}  # as before
    data: dict[str, Any] = {
        "serials": {p: f"{i:08d}" for i, p in enumerate(players)}, "names": names,
        "outcome": {"final_bid": {"player": "p1", "quantity": 3, "digit": 1}, "count": 5, "made": True,
                    "skunk": False, "multiplier": 1, "multiplier_text": "×1",
                    "transfers": [{"from": p, "to": "p1", "units": 1} for p in players[1:]], "net": {}},
    }
    data["words"] = count_picture_words(data["outcome"], RankOrder.ZERO_LOW, 1)
    prepared = _prepare(data)
    assert prepared["names"] == drawn and "Player 2" in " ".join(prepared["payments"])
    render_count(data)
    render_nets_chart({p: i - 3 for i, p in enumerate(players)}, names, title="Nets")
