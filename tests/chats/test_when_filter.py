"""Message times carry their date once they are not from today (#8)."""

from datetime import timedelta

from django.utils import timezone

from chats.templatetags.chat_text import clipped, is_long, when


def test_it_a_time_today_is_the_time_and_an_older_one_has_its_date():
    now = timezone.localtime()
    assert when(now) == now.strftime("%H:%M")
    earlier = now - timedelta(days=40)
    shown = when(earlier)
    assert shown.endswith(earlier.strftime("%H:%M")) and str(earlier.day) in shown
    assert earlier.strftime("%b") in shown
    assert str(now.year - 1) in when(now.replace(year=now.year - 1))


def test_it_a_huge_text_is_clipped_and_says_so():
    assert clipped("short") == "short"
    big = clipped("y" * 1_000_000)
    assert len(big) < 20_100 and "980,000 more characters not shown here" in big
    assert is_long("z" * 1_300) and not is_long("z" * 100)
