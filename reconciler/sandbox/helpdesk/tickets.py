"""tickets endpoints of the helpdesk sandbox."""

from __future__ import annotations
