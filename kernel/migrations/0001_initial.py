# The table chats made (chats 0003, 0007) now belongs to the kernel: only the state moves.

from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('chats', '0009_chat_stop_session'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.CreateModel(
            name='IdempotentAnswer',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('credential', models.CharField(max_length=64)),
                ('key', models.CharField(max_length=255)),
                ('request_digest', models.CharField(max_length=64)),
                ('status', models.PositiveSmallIntegerField(null=True)),
                ('result', models.CharField(blank=True, max_length=80)),
                ('body', models.TextField(blank=True)),
                ('created_at', models.DateTimeField()),
            ],
            options={
                'db_table': 'chats_idempotentanswer',
                'indexes': [models.Index(fields=['created_at'], name='chats_idemp_created_884332_idx')],
                'constraints': [models.UniqueConstraint(models.F('credential'), models.F('key'), name='idempotency_key_once_per_credential')],
            },
        ),
        ])
    ]
