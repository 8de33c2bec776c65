"""JSON shapes of invitations: a project admin's list and new invitation, the holder's view."""

from __future__ import annotations

from rest_framework import serializers

from annotations.models import Invitation, Membership


class InvitationCreateSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    email = serializers.EmailField(
        required=False,
        allow_blank=True,
        default="",
        max_length=254,
        help_text="Where to send the link (optional; sent only when the operator configured "
        "e-mail). The link is in the reply either way.",
    )


class InvitationSerializer(serializers.ModelSerializer):
    created_by = serializers.SerializerMethodField()

    class Meta:
        model = Invitation
        fields = ["id", "role", "email", "created_by", "created_at", "expires_at"]

    def get_created_by(self, invitation: Invitation) -> str | None:
        return invitation.created_by.get_username() if invitation.created_by else None


class NewInvitationSerializer(InvitationSerializer):
    link = serializers.CharField(help_text="The single-use link: shown only in this reply.")
    sent = serializers.BooleanField(help_text="Whether the link was e-mailed.")

    class Meta(InvitationSerializer.Meta):
        fields = [*InvitationSerializer.Meta.fields, "link", "sent"]


class InvitationViewSerializer(serializers.Serializer):
    project = serializers.CharField(help_text="The project's name.")
    role = serializers.CharField()
    expires_at = serializers.DateTimeField()
    signed_in_as = serializers.CharField(
        allow_null=True, help_text="Your username when you are signed in (you join as it)."
    )
    member = serializers.BooleanField(help_text="Whether you already are a member.")


class AcceptSerializer(serializers.Serializer):
    username = serializers.CharField(
        required=False, max_length=150, help_text="A new account's (when not signed in)."
    )
    password = serializers.CharField(
        required=False, trim_whitespace=False, style={"input_type": "password"}
    )


class AcceptedSerializer(serializers.Serializer):
    project = serializers.IntegerField(help_text="The project's id.")
    role = serializers.CharField(help_text="Your role in it.")
    username = serializers.CharField()
