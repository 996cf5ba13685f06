# IdempotentAnswer moved to the kernel (kernel 0001): its table stays, only the state goes.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('chats', '0009_chat_stop_session'),
        ('kernel', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.DeleteModel(name='IdempotentAnswer'),
        ]),
    ]
