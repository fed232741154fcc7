//! A dry run of a `.pt` file's pickle that counts the objects candle's unpickler would build,
//! without building any.
//!
//! Python's unpickler shares an object fetched from the memo (`BINGET`); candle's
//! (`candle_core::pickle::Stack`) copies it. A pickle that fetches an object twice, packs the two
//! copies in a tuple and stores that back doubles in size every six bytes: a few hundred bytes
//! ask for 2^40 objects, and the process runs out of memory and aborts. The dry run follows the
//! opcodes candle knows with a count in place of each object, and stops at [`MAX_OBJECTS`].

/// The most objects a state_dict's pickle may build: a tensor costs about twenty (its name, its
/// rebuild call, the storage tuple, shape, stride...), so a million allows 50,000 tensors.
pub const MAX_OBJECTS: u64 = 1 << 20;

/// What the stack holds: a mark, or an object of `n` objects (itself and those inside it).
#[derive(Clone, Copy)]
enum Slot {
    Mark,
    Object(u64),
}

struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
    stack: Vec<Slot>,
    memo: std::collections::HashMap<u32, u64>,
}

impl Scan<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or("it ends inside an opcode")?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn line(&mut self) -> Result<(), String> {
        let rest = &self.bytes[self.at..];
        let n = rest.iter().position(|&b| b == b'\n').ok_or("a GLOBAL name has no end of line")?;
        self.at += n + 1;
        Ok(())
    }

    fn push(&mut self, n: u64) -> Result<(), String> {
        if n > MAX_OBJECTS {
            return Err(format!("it copies objects from its memo into more than {MAX_OBJECTS} objects"));
        }
        self.stack.push(Slot::Object(n));
        Ok(())
    }

    fn pop(&mut self) -> Result<u64, String> {
        match self.stack.pop() {
            Some(Slot::Object(n)) => Ok(n),
            _ => Err("an opcode takes an object the stack does not have".into()),
        }
    }

    /// Pops everything above the last mark, and the mark; returns the objects' total.
    fn pop_to_mark(&mut self) -> Result<u64, String> {
        let mut total = 0u64;
        loop {
            match self.stack.pop() {
                Some(Slot::Object(n)) => total = total.saturating_add(n),
                Some(Slot::Mark) => return Ok(total),
                None => return Err("an opcode needs a MARK the stack does not have".into()),
            }
        }
    }

    /// Adds `n` objects to the one on top (APPEND, SETITEM, BUILD).
    fn grow_top(&mut self, n: u64) -> Result<(), String> {
        let top = self.pop()?;
        self.push(top.saturating_add(n))
    }

    fn run(&mut self) -> Result<(), String> {
        while self.at < self.bytes.len() {
            let op = self.take(1)?[0];
            match op {
                0x80 | b'K' => drop(self.take(1)?),
                b'M' => drop(self.take(2)?),
                b'J' => drop(self.take(4)?),
                b'G' => drop(self.take(8)?),
                0x8a => {
                    let n = self.take(1)?[0] as usize;
                    self.take(n)?;
                    self.push(1)?
                }
                b'c' => {
                    self.line()?;
                    self.line()?;
                    self.push(1)?
                }
                b'X' => {
                    let n = self.u32()? as usize;
                    self.take(n)?;
                    self.push(1)?
                }
                b'N' | 0x88 | 0x89 | b'}' | b')' | b']' => self.push(1)?,
                b'(' => self.stack.push(Slot::Mark),
                b'Q' => {
                    let id = self.pop()?;
                    self.push(id.saturating_add(1))?
                }
                0x85..=0x87 => {
                    let mut total = 1u64;
                    for _ in 0..(op - 0x84) {
                        total = total.saturating_add(self.pop()?);
                    }
                    self.push(total)?
                }
                b't' | b'd' => {
                    let total = self.pop_to_mark()?;
                    self.push(total.saturating_add(1))?
                }
                b'a' | b'b' => {
                    let value = self.pop()?;
                    self.grow_top(value)?
                }
                b's' => {
                    let pair = self.pop()?.saturating_add(self.pop()?);
                    self.grow_top(pair)?
                }
                b'e' | b'u' => {
                    let total = self.pop_to_mark()?;
                    self.grow_top(total)?
                }
                b'R' | 0x81 => {
                    let total = self.pop()?.saturating_add(self.pop()?);
                    self.push(total.saturating_add(1))?
                }
                b'h' | b'j' => {
                    let id = if op == b'h' { u32::from(self.take(1)?[0]) } else { self.u32()? };
                    let n = *self.memo.get(&id).ok_or_else(|| format!("it fetches memo entry {id}, which was never stored"))?;
                    self.push(n)?
                }
                b'q' | b'r' => {
                    let id = if op == b'q' { u32::from(self.take(1)?[0]) } else { self.u32()? };
                    let Some(Slot::Object(n)) = self.stack.last().copied() else { return Err("it stores a mark in its memo".into()) };
                    self.memo.insert(id, n);
                }
                b'.' => return Ok(()),
                // Candle refuses any other opcode itself, with its own message.
                _ => return Ok(()),
            }
        }
        Ok(())
    }
}

/// Refuses a pickle whose memo copies would make candle's unpickler build more than
/// [`MAX_OBJECTS`] objects; the reason otherwise. Other faults (truncation, a missing mark) are
/// left to candle, which reports them itself.
pub fn check_copies(pickle: &[u8]) -> Result<(), String> {
    let mut scan = Scan { bytes: pickle, at: 0, stack: vec![], memo: Default::default() };
    match scan.run() {
        Err(why) if why.contains("copies") => Err(why),
        _ => Ok(()),
    }
}
