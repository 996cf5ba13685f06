from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="HostedRunners",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
            ],
            options={
                "verbose_name": "hosted agent runners",
                "default_permissions": (),
                "permissions": [("run_hosted", "Can run hosted agents on this server")],
            },
        ),
    ]
