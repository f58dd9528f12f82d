"""Card faces as text: framed, red and black (or four colours), and their fan."""

from __future__ import annotations

from rummy.client.look import Look
from rummy.client.widgets.table.faces import SMALL, Face, fan
from rummy.engine.positions import c


def test_a_fan_frames_each_card_and_numbers_it() -> None:
    lines = [line.plain for line in fan([Face(c("7h"), label="1"), Face(c("10s"), label="2")], SMALL, Look())]
    assert lines == ["         ", "╭───╭───╮", "│ 7♥│10♠│", "╰─1─╰─2─╯"]
    ascii_lines = [line.plain for line in fan([Face(c("7h"), raised=True)], SMALL, Look(ascii=True))]
    assert ascii_lines == ["+---+", "| 7h|", "+---+", "     "]  # raised into the row above


def test_red_and_black_or_four_colours() -> None:
    two, four = Look(), Look(four_colour=True)
    assert two.ink(c("2c")) == two.ink(c("2s")) and two.ink(c("2d")) == two.ink(c("2h"))
    inks = {four.ink(c(card)) for card in ("2c", "2d", "2h", "2s")}
    assert len(inks) == 4  # a colour for each suit
