"""Receiving a shipment: a CSV of product_id,quantity,reference, checked whole, then received a
chunk a request, kept in the session until done."""
from django.contrib import messages
from django.shortcuts import redirect, render

from catalog.gateway import receiving
from storefront.http import partial_template

from ..decorators import POST, READ_AND_POST, staff_view
from ..forms import ReceiveForm

RECEIVE_SESSION_KEY = "staff_receive"
RECEIVE_CHUNK = 200  # lines a request: a few seconds at most, far within gunicorn's timeout


@staff_view(READ_AND_POST)
def receive(request):
    """Upload a CSV (product_id,quantity,reference): checked whole first (every problem by line,
    nothing written if there is one); then received in chunks of RECEIVE_CHUNK lines, one request
    each (HTMX asks for the next chunk until the summary; without JavaScript a Continue button
    does). The file is kept in the session until done; each line's idempotency key is the file's
    hash and its line number, so uploading it again applies nothing twice."""
    if request.method != "POST":
        return render(request, "staff/receive.html", {"form": ReceiveForm(), "job": _receive_job(request)})
    form = ReceiveForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, "staff/receive.html", {"form": form}, status=400)
    upload = form.cleaned_data["file"]
    if upload.size > receiving.MAX_FILE_BYTES:
        form.add_error("file", f"The file is larger than {receiving.MAX_FILE_BYTES // (1024 * 1024)} MB.")
        return render(request, "staff/receive.html", {"form": form}, status=400)
    content = upload.read()
    try:
        receipt = receiving.validate(content)
    except receiving.ReceiptInvalid as exc:
        return render(request, "staff/receive.html", {"form": ReceiveForm(), "problems": exc.problems}, status=400)
    request.session[RECEIVE_SESSION_KEY] = {
        "name": upload.name, "content": content.decode("utf-8-sig"), "digest": receipt.digest,
        "total": len(receipt.lines), "done": 0, "applied": 0, "replayed": 0, "units": 0,
    }
    return _receive_step(request)


@staff_view(POST)
def receive_continue(request):
    return _receive_step(request)


def _receive_job(request):
    return request.session.get(RECEIVE_SESSION_KEY)


def _receive_step(request):
    """Receive the next chunk of the session's file and show the progress (or the summary)."""
    job = _receive_job(request)
    if job is None:
        messages.error(request, "There is no file being received; upload it (again: nothing is applied twice).")
        return redirect("staff_receive")
    if job["done"] < job["total"]:
        receipt = receiving.parse(job["content"].encode())
        step = receiving.receive_lines(
            receipt, who=request.user.get_username(), start=job["done"], count=RECEIVE_CHUNK
        )
        job.update(done=job["done"] + step.done, applied=job["applied"] + step.applied,
                   replayed=job["replayed"] + step.replayed, units=job["units"] + step.units)
        request.session[RECEIVE_SESSION_KEY] = job
    finished = job["done"] >= job["total"]
    if finished:
        del request.session[RECEIVE_SESSION_KEY]
    context = {"form": ReceiveForm(), "job": job, "finished": finished,
               "percent": int(100 * job["done"] / job["total"]) if job["total"] else 100}
    return render(request, partial_template(request, "staff/receive.html", "progress"), context)
