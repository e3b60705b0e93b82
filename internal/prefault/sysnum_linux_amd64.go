package prefault

const sysPreadv2 = 327
