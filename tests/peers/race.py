"""Code that runs in child processes for the concurrency tests (spawned, so it
sets Django up itself and points at the test database of the parent)."""

import os
import threading


def setup_django(db_name: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crosstalk.settings")
    import django

    django.setup()
    from django.db import connections

    connections["default"].settings_dict["NAME"] = db_name


def send_many(db_name: str, jobs: list[tuple[str, str]], results) -> None:
    """Each job (sender id, recipient id) sends once, all threads at once."""
    setup_django(db_name)
    from django.db import connection

    from chats.models import Chat
    from kernel.refusals import Refusal
    from peers.actions import check_send_message

    start = threading.Barrier(len(jobs))

    def run(sender_id: str, to: str) -> None:
        sender = Chat.objects.select_related("user").get(pk=sender_id)
        connection.close()  # back to the pool: more threads than pooled connections
        start.wait()
        try:
            check_send_message(sender, to=to, text="race")
            results.put("sent")
        except Refusal as refusal:
            results.put(refusal.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def wait_for_answer(db_name: str, sender_id: str, to: str, results) -> None:
    """Send with a wait in this process; the answer is sent by another one."""
    setup_django(db_name)
    import asyncio

    from chats.models import Chat
    from peers.waiting import send_and_wait

    async def main() -> None:
        sender = await Chat.objects.select_related("user").aget(pk=sender_id)
        message, answer = await send_and_wait(sender, to=to, text="which port?", wait_seconds=20)
        results.put((message.pk, answer.pk if answer else None, answer.detail if answer else None))

    asyncio.run(main())
