// AudioWorklet: plays PCM (Float32 at the context's rate) posted by the page, in order,
// as it arrives; reports how many samples have reached the output.
class PcmPlayer extends AudioWorkletProcessor {
  constructor() {
    super();
    this.queue = [];
    this.offset = 0;
    this.played = 0;
    this.received = 0;
    this.lastReport = 0;
    this.port.onmessage = (e) => {
      if (e.data === 'reset') { this.queue = []; this.offset = 0; this.played = 0; this.received = 0; return; }
      this.queue.push(e.data);
      this.received += e.data.length;
    };
  }

  process(_inputs, outputs) {
    const out = outputs[0][0];
    let i = 0;
    while (i < out.length && this.queue.length) {
      const head = this.queue[0];
      const n = Math.min(out.length - i, head.length - this.offset);
      out.set(head.subarray(this.offset, this.offset + n), i);
      i += n;
      this.offset += n;
      this.played += n;
      if (this.offset === head.length) { this.queue.shift(); this.offset = 0; }
    }
    out.fill(0, i);
    if (this.played !== this.lastReport && (this.played - this.lastReport >= 1200 || this.queue.length === 0)) {
      this.lastReport = this.played;
      this.port.postMessage({ played: this.played, received: this.received });
    }
    return true;
  }
}
registerProcessor('pcm-player', PcmPlayer);
